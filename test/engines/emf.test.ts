/**
 * Every metric an alarm watches on Tally's own namespace is written by Tally's code as a valid EMF
 * line that the alarm matches (namespace, metric name, dimension names): test/helpers/emf.ts checks
 * it on the lines each path really writes, in the test files listed here. The list must name every
 * such alarm's metric, and each file must use the check; a new alarm on a metric no test captures, or
 * a capture that stops checking, fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alarmedCustomMetrics, emfProblems, expectWatchedByAlarm } from '../helpers/emf';
import { emfRecord } from '../../lambdas/logging/metric';
import { FUNCTION_DIMENSION, METRICS_NAMESPACE } from '../../lambdas/contract/metrics';

/** Metric -> the test that captures its line from the path that writes it and checks it with expectWatchedByAlarm. */
const CAPTURED_BY: Record<string, string> = {
  ResultsStateWriteFailed: 'test/store/results-incremental-athena.test.ts',
  ResultsBaseWriteFailed: 'test/store/results-incremental-athena.test.ts',
  InsightQueryFailed: 'test/e2e/insights-athena.e2e.test.ts',
  GuardrailBreached: 'test/e2e/results-metrics.e2e.test.ts',
  AuditRecordFailed: 'test/e2e/audit.e2e.test.ts',
  CompactionFailed: 'test/store/compaction.test.ts',
  CuratedFilesOverGoal: 'test/store/compaction.test.ts',
  RetentionFailed: 'test/store/retention.test.ts',
  DeletionFailed: 'test/e2e/erasure-resume.e2e.test.ts',
  ExportFailed: 'test/e2e/export.e2e.test.ts',
};

describe('EMF lines and the alarms on them', () => {
  it('every alarmed custom metric is captured from its path and checked against the alarm', () => {
    const alarmed = [...new Set(alarmedCustomMetrics().map((m) => m.name))].sort();
    expect(alarmed.length).toBeGreaterThan(0);
    expect(Object.keys(CAPTURED_BY).sort()).toEqual(alarmed);
    for (const [metric, file] of Object.entries(CAPTURED_BY)) {
      const source = readFileSync(file, 'utf8');
      expect(source, `${file} checks its ${metric} line`).toMatch(/expectWatchedByAlarm\(/);
      expect(source, `${file} captures ${metric}`).toContain(metric);
    }
  });

  it('refuses lines the specification or the alarms would not take (the check can fail)', () => {
    const good = emfRecord({ namespace: METRICS_NAMESPACE, name: 'GuardrailBreached', dimensions: { [FUNCTION_DIMENSION]: 'fn' } });
    expect(emfProblems(JSON.stringify(good))).toEqual([]);
    const aws = good._aws as { Timestamp?: number; CloudWatchMetrics: Array<Record<string, unknown>> };
    const broken = (change: (doc: any) => void) => {
      const doc = structuredClone({ ...good, _aws: aws }) as any;
      change(doc);
      return JSON.stringify(doc);
    };
    expect(emfProblems(broken((d) => delete d._aws.Timestamp))).not.toEqual([]);
    expect(emfProblems(broken((d) => delete d.FunctionName))).not.toEqual([]);
    expect(emfProblems(broken((d) => (d.GuardrailBreached = '1')))).not.toEqual([]);
    expect(emfProblems(broken((d) => (d._aws.CloudWatchMetrics[0].Metrics[0].Unit = 'count')))).not.toEqual([]);
    expect(emfProblems('prefix ' + JSON.stringify(good))).not.toEqual([]);
    // Valid EMF, but no alarm watches it under that namespace or those dimensions.
    expect(() => expectWatchedByAlarm(broken((d) => (d._aws.CloudWatchMetrics[0].Namespace = 'Other')))).toThrow();
    expect(() => expectWatchedByAlarm(broken((d) => (d._aws.CloudWatchMetrics[0].Dimensions = [[]])))).toThrow();
    expect(() => expectWatchedByAlarm(JSON.stringify(good))).not.toThrow();
  });
});

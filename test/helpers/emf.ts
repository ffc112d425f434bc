/**
 * Embedded-metric-format lines checked against the specification and against the alarms of the
 * synthesized template: a line Tally's code writes (captured from a real path by the tests that
 * name this helper in test/engines/emf.test.ts) must be a valid EMF document, and each metric in it
 * must be one an alarm watches, with the namespace and the dimension names the alarm uses; a metric
 * CloudWatch would extract under another name or dimension set raises no alarm at all.
 *
 * The specification (Amazon CloudWatch user guide, "Specification: Embedded metric format",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html)
 * is written down as a JSON Schema in test/fixtures/emf/emf-schema.json, run by ajv; the rules a schema
 * cannot state (every dimension and metric a directive names is a member of the root, dimension
 * values are strings, metric values numbers) are checked in emfProblems below.
 */
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import schema from '../fixtures/emf/emf-schema.json';
import { resourcesOf } from './template-texts';

const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

export interface EmfMetric {
  namespace: string;
  name: string;
  dimensions: string[];
}

/** What is wrong with a line under the specification; [] when nothing is. */
export function emfProblems(line: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch {
    return ['not one JSON object (the LogEvent message must be exactly a JSON object)'];
  }
  if (!validate(doc)) return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  const root = doc as Record<string, unknown> & { _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } };
  const problems: string[] = [];
  for (const directive of root._aws.CloudWatchMetrics) {
    for (const name of directive.Dimensions.flat()) {
      if (typeof root[name] !== 'string' || root[name] === '') problems.push(`dimension ${name} is not a non-empty string member of the root`);
    }
    for (const { Name } of directive.Metrics) {
      const value = root[Name];
      const values = Array.isArray(value) ? value : [value];
      if (values.length === 0 || values.length > 100 || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
        problems.push(`metric ${Name} is not a member holding a number or an array of 1 to 100 numbers`);
      }
    }
  }
  return problems;
}

/** The metrics a valid line declares. */
export function emfMetrics(line: string): EmfMetric[] {
  const root = JSON.parse(line) as { _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } };
  return root._aws.CloudWatchMetrics.flatMap((d) =>
    d.Dimensions.flatMap((dimensions) => d.Metrics.map((m) => ({ namespace: d.Namespace, name: m.Name, dimensions: [...dimensions].sort() }))),
  );
}

/** The metrics the template's alarms watch on a custom namespace (not AWS/…), with their dimension names. */
export function alarmedCustomMetrics(): EmfMetric[] {
  return resourcesOf('AWS::CloudWatch::Alarm')
    .map(([, r]) => r.Properties)
    .filter((p) => typeof p.Namespace === 'string' && !p.Namespace.startsWith('AWS/'))
    .map((p) => ({
      namespace: p.Namespace as string,
      name: p.MetricName as string,
      dimensions: ((p.Dimensions ?? []) as Array<{ Name: string }>).map((d) => d.Name).sort(),
    }));
}

/** Asserts the line is valid EMF and that an alarm of the synthesized template watches each metric it declares. */
export function expectWatchedByAlarm(line: string): void {
  expect(emfProblems(line), line).toEqual([]);
  const watched = alarmedCustomMetrics().map((m) => JSON.stringify(m));
  for (const metric of emfMetrics(line)) expect(watched, `an alarm watching ${JSON.stringify(metric)}`).toContain(JSON.stringify(metric));
}

/**
 * The retention setting in the stack (docs/decisions/retention.md): checked at synth, reaching the
 * compaction job and the results reader as KEEP_EVENTS_DAYS, the compaction job allowed to delete
 * curated event partitions and nothing more, its failure alarmed; and no IP address in the API's
 * access log format.
 */
import { describe, expect, it } from 'vitest';
import { inlinePolicies, synthStack } from './synth';

const envOf = (s: ReturnType<typeof synthStack>, fn: { node: { defaultChild?: unknown } }) =>
  s.template.toJSON().Resources[s.stack.getLogicalId(fn.node.defaultChild as never)].Properties.Environment.Variables as Record<string, unknown>;

describe('event retention in the stack', () => {
  it('keepEventsDays reaches the compaction job and the results reader; unset, neither has the variable', () => {
    const kept = synthStack({ keepEventsDays: 400, dashboard: false });
    expect(envOf(kept, kept.stack.jobs['compact-landing'].fn).KEEP_EVENTS_DAYS).toBe('400');
    expect(envOf(kept, kept.stack.functions['admin-results-get'].fn).KEEP_EVENTS_DAYS).toBe('400');
    const forever = synthStack({ dashboard: false });
    expect(envOf(forever, forever.stack.jobs['compact-landing'].fn)).not.toHaveProperty('KEEP_EVENTS_DAYS');
    expect(envOf(forever, forever.stack.functions['admin-results-get'].fn)).not.toHaveProperty('KEEP_EVENTS_DAYS');
  });

  it('refuses a retention that is not whole days from 90 to 36500 at synth, saying what to set', () => {
    for (const bad of [30, 89, 90.5, 36_501, Number.NaN]) {
      expect(() => synthStack({ keepEventsDays: bad, dashboard: false })).toThrow(
        /^keepEventsDays must be a whole number of days from 90 \(the longest look-back: planning baselines\) to 36500, or unset to keep events forever/,
      );
    }
  });

  it('only the compaction job may delete Glue partitions, and only those of curated_events', () => {
    const s = synthStack({ keepEventsDays: 400, dashboard: false });
    const compactRole = s.stack.getLogicalId(s.stack.jobs['compact-landing'].fn.role!.node.defaultChild as never);
    const deleting = inlinePolicies(s.template).flatMap((p) =>
      p.document.Statement.filter((st: any) =>
        [st.Action].flat().some((a: string) => a === 'glue:BatchDeletePartition' || a === 'glue:DeletePartition' || a === 'glue:*'),
      ).map((st: any) => ({ roles: p.roles, resources: [st.Resource].flat() })),
    );
    expect(deleting).toHaveLength(1);
    expect(deleting[0]!.roles).toEqual([compactRole]);
    // The table ARNs are joined with the database's Ref: only curated_events, not curated_identities.
    const tables = deleting[0]!.resources.filter((r: any) => JSON.stringify(r).includes(':table/'));
    expect(tables.map((r: any) => r['Fn::Join'][1].at(-1))).toEqual(['/curated_events']);
  });

  it('alarms when a retention cut fails', () => {
    const s = synthStack({ dashboard: false });
    const alarms = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).filter((a) => a.Properties.MetricName === 'RetentionFailed');
    expect(alarms).toHaveLength(1);
  });

  it('no API access log format records the client IP address', () => {
    const s = synthStack({ dashboard: false, apiAccessLogs: true });
    const stages = Object.values(s.template.findResources('AWS::ApiGateway::Stage'));
    const formats = stages.map((st) => st.Properties.AccessLogSetting?.Format).filter(Boolean);
    expect(formats.length).toBeGreaterThan(0);
    for (const format of formats) {
      expect(format).not.toMatch(/sourceIp|\$context\.identity\.(sourceIp|clientCert|caller|user)|X-Forwarded-For/i);
    }
  });
});

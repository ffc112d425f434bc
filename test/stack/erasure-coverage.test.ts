/**
 * Every store of the deployed stack is accounted for by a person's deletion (docs/decisions/erasure.md,
 * "Every store that holds a user ID"): each DynamoDB table and S3 bucket of the synthesized template is
 * either listed as holding user IDs and reachable by the deletion (the compaction job's role may do the
 * writes the deletion does there), or listed as holding none, with the reason. A table or bucket added
 * later without being listed here fails, and so does a grant the deletion relies on going missing.
 */
import { Duration } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLES, type TableName } from '../../lambdas/store/schema';
import { inlinePolicies, synthStack, type Synth } from './synth';

/** Within this of the request, nothing of the person may be left (docs/privacy.md). */
const BOUND_MS = Duration.hours(24).toMilliseconds();

type Coverage =
  /** Holds user IDs; the deletion's step(s) remove them with these DynamoDB actions. */
  | { holds: 'user IDs'; step: string; actions: string[] }
  /** Holds user IDs and keeps them on purpose, documented in docs/privacy.md. */
  | { holds: 'user IDs, kept'; reason: string }
  | { holds: 'no user IDs'; reason: string };

const TABLE_COVERAGE: Record<TableName, Coverage> = {
  identities: { holds: 'user IDs', step: 'identities', actions: ['dynamodb:DeleteItem'] },
  assignments: { holds: 'user IDs', step: 'assignments', actions: ['dynamodb:DeleteItem'] },
  results: { holds: 'user IDs', step: 'results_state (counts derived from the person’s events, deleted to be recomputed)', actions: ['dynamodb:DeleteItem'] },
  insight_queries: { holds: 'user IDs', step: 'insight_queries (cached answers over the person’s rows)', actions: ['dynamodb:DeleteItem'] },
  exports: { holds: 'user IDs', step: 'exports', actions: ['dynamodb:DeleteItem'] },
  deletions: { holds: 'user IDs, kept', reason: 'the request itself, kept as the record that it was carried out' },
  events: { holds: 'no user IDs', reason: 'the dedupe ledger: SHA-256 keys only, expired by TTL' },
  audit_log: { holds: 'no user IDs', reason: 'records the route, project and field names of a deletion, never the values' },
  projects: { holds: 'no user IDs', reason: 'project names and settings a team made' },
  api_keys: { holds: 'no user IDs', reason: 'hashes of the project keys' },
  experiments: { holds: 'no user IDs', reason: 'experiment definitions a team made' },
  saved_insights: { holds: 'no user IDs', reason: 'insight definitions a team made' },
  dashboards: { holds: 'no user IDs', reason: 'dashboard layouts a team made' },
};

/** Per bucket: each prefix holding user IDs and the S3 actions the deletion uses under it. */
type BucketCoverage =
  { holds: 'user IDs'; prefixes: Record<string, { step: string; actions: string[] } | { outside: string }> } | { holds: 'no user IDs'; reason: string };

let s: Synth;
let bucketCoverage: Record<string, BucketCoverage>;

const logicalId = (c: IConstruct) => s.stack.resolve((c.node.defaultChild as unknown as { logicalId: string }).logicalId) as string;
const asArray = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : [v as string]);

/** The compaction job's statements (the deletion runs in its run). */
function deletionStatements(): Array<{ Action: unknown; Resource: unknown }> {
  const role = logicalId(s.stack.jobs['compact-landing'].fn.role!);
  return inlinePolicies(s.template)
    .filter((p) => p.roles.includes(role))
    .flatMap((p) => p.document.Statement);
}

/** The actions the deletion may do on resources that mention `id` (and `path`, when given). */
function grantedOn(id: string, path?: string): Set<string> {
  return new Set(
    deletionStatements()
      .filter((st) => {
        const r = JSON.stringify(st.Resource);
        return r.includes(`"${id}"`) && (path === undefined || r.includes(path));
      })
      .flatMap((st) => asArray(st.Action)),
  );
}

beforeAll(() => {
  s = synthStack();
  bucketCoverage = {
    [logicalId(s.stack.raw.bucket)]: {
      holds: 'user IDs',
      prefixes: {
        'landing/': { step: 'landing_events, landing_identities: objects written back without the person', actions: ['s3:GetObject', 's3:PutObject'] },
        'curated/': {
          step: 'curated_events, curated_identities: new generation, old one deleted after the grace',
          actions: ['s3:PutObject', 's3:DeleteObject'],
        },
        'results-state/': { step: 'results_state', actions: ['s3:DeleteObject'] },
        'results-base/': { step: 'results_state', actions: ['s3:DeleteObject'] },
        'exports/': { step: 'exports', actions: ['s3:DeleteObject'] },
        'errors/': { outside: 'records Firehose could not deliver, until `npm run redrive` (docs/privacy.md, "Outside the bound")' },
      },
    },
    [logicalId(s.stack.analytics.resultsBucket)]: {
      holds: 'user IDs',
      prefixes: { 'results/': { step: "insight_queries and the deletion's own links query: their Athena result files", actions: ['s3:DeleteObject'] } },
    },
    [logicalId(s.stack.node.findChild('AccessLogs'))]: {
      holds: 'no user IDs',
      reason: 'S3 server access logs: request lines whose object keys name projects, hours, generations and export IDs, never a user ID',
    },
    ...(s.stack.dashboard
      ? { [logicalId(s.stack.dashboard.bucket)]: { holds: 'no user IDs', reason: "the dashboard's and the SDK's static files" } as BucketCoverage }
      : {}),
  };
});

describe("a person's deletion covers every store of the stack", () => {
  it('classifies every DynamoDB table of the template; those holding user IDs the deletion can delete from', () => {
    const tables = Object.keys(s.template.findResources('AWS::DynamoDB::Table'));
    const names = Object.fromEntries((Object.keys(TABLES) as TableName[]).map((n) => [logicalId(s.stack.tables[n]), n]));
    expect(tables.length).toBeGreaterThan(0);
    for (const id of tables) {
      const name = names[id];
      expect(name, `table ${id} is not a TABLES layout: classify it for deletions`).toBeDefined();
      const coverage = TABLE_COVERAGE[name!];
      expect(coverage, `table ${name} is not classified in TABLE_COVERAGE (holds user IDs, and which step deletes them, or why not)`).toBeDefined();
      if (coverage.holds !== 'user IDs') continue;
      const granted = grantedOn(id);
      for (const action of coverage.actions) expect(granted.has(action), `the deletion (compaction job) lacks ${action} on table ${name}`).toBe(true);
    }
  });

  it('classifies every S3 bucket of the template; under each prefix holding user IDs the deletion can do what it does there', () => {
    const buckets = Object.keys(s.template.findResources('AWS::S3::Bucket'));
    expect(buckets.length).toBeGreaterThan(0);
    for (const id of buckets) {
      const coverage = bucketCoverage[id];
      expect(coverage, `bucket ${id} is not classified for deletions (holds user IDs under which prefixes, or why not)`).toBeDefined();
      if (coverage!.holds !== 'user IDs') continue;
      for (const [prefix, c] of Object.entries(coverage!.prefixes)) {
        if ('outside' in c) continue;
        const granted = grantedOn(id, `/${prefix}*`);
        for (const action of c.actions) expect(granted.has(action), `the deletion (compaction job) lacks ${action} on ${prefix}* of ${id}`).toBe(true);
      }
    }
  });

  it('writes every Firehose delivery (and its errors) under a classified prefix of a classified bucket', () => {
    const streams = Object.values(s.template.findResources('AWS::KinesisFirehose::DeliveryStream'));
    expect(streams.length).toBeGreaterThan(0);
    for (const stream of streams) {
      const dest = stream.Properties.ExtendedS3DestinationConfiguration;
      const bucketId = dest.BucketARN['Fn::GetAtt'][0] as string;
      const coverage = bucketCoverage[bucketId];
      expect(coverage?.holds).toBe('user IDs');
      const prefixes = Object.keys((coverage as Extract<BucketCoverage, { holds: 'user IDs' }>).prefixes);
      for (const key of [dest.Prefix, dest.ErrorOutputPrefix] as string[]) {
        expect(
          prefixes.some((p) => key.startsWith(p)),
          `Firehose writes ${key}, under no prefix the deletion classifies`,
        ).toBe(true);
      }
    }
  });

  it('versions no bucket holding user IDs: an S3 lifecycle noncurrent-version expiry runs at the next midnight UTC after a whole day, asynchronously, so it cannot keep the 24-hour bound', () => {
    for (const [id, bucket] of Object.entries(s.template.findResources('AWS::S3::Bucket'))) {
      const versioned = bucket.Properties.VersioningConfiguration?.Status === 'Enabled';
      if (bucketCoverage[id]?.holds === 'user IDs') expect(versioned, `${id} holds user IDs and is versioned`).toBe(false);
    }
  });

  it('deletes a superseded curated generation (the old files with the person) within the bound: grace + schedule interval + a run', () => {
    const fn = s.template.findResources('AWS::Lambda::Function')[logicalId(s.stack.jobs['compact-landing'].fn)]!;
    const graceMs = Number(fn.Properties.Environment.Variables.COMPACTION_GRACE_SECONDS) * 1000;
    const runMs = Number(fn.Properties.Timeout) * 1000;
    const rules = Object.values(s.template.findResources('AWS::Events::Rule')).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(`"${logicalId(s.stack.jobs['compact-landing'].fn)}"`),
    );
    expect(rules).toHaveLength(1);
    const rate = /^rate\((\d+) minutes?\)$/.exec(rules[0]!.Properties.ScheduleExpression as string);
    expect(rate, 'the compaction schedule is a rate in minutes').not.toBeNull();
    const intervalMs = Number(rate![1]) * 60_000;
    // Grace 4 h, a run every 15 min of up to 15 min: the generation is deleted by 4 h 30 min at most.
    expect(graceMs).toBe(4 * 3_600_000);
    expect(graceMs + intervalMs + runMs).toBeLessThanOrEqual(BOUND_MS);
  });

  it('expires the Athena result location, and lets the deletion delete the result files it knows of there at once', () => {
    const results = s.template.findResources('AWS::S3::Bucket')[logicalId(s.stack.analytics.resultsBucket)]!;
    const rules = results.Properties.LifecycleConfiguration.Rules as Array<{ Status: string; ExpirationInDays?: number; Prefix?: string }>;
    const expiry = rules.find((r) => r.Status === 'Enabled' && r.ExpirationInDays !== undefined && !r.Prefix);
    expect(expiry, 'the whole results bucket expires').toBeDefined();
    expect(grantedOn(logicalId(s.stack.analytics.resultsBucket), '/results/*').has('s3:DeleteObject')).toBe(true);
  });
});

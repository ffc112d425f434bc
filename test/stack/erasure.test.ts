/**
 * What a person's deletion relies on in the stack (docs/decisions/erasure.md): the `deletions` table;
 * no versioned bucket, so a rewritten or deleted object leaves no old version behind the 24-hour
 * bound (were one versioned, it would need a noncurrent-version expiry within the bound); and every
 * table and bucket classified (held, removed by which step, or none), with the compaction job allowed
 * to delete where a step removes the person.
 */
import { Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CURATED_PREFIX, LANDING_PREFIX } from '../../lambdas/contract/landing';
import { DELETION_STEPS } from '../../lambdas/domain/deletion';
import { TABLES, type TableName } from '../../lambdas/store/schema';
import { inlinePolicies, synthStack, type Synth } from './synth';

const logicalId = (construct: { node: { defaultChild?: unknown } }) => Stack.of(construct as never).getLogicalId(construct.node.defaultChild as never);

/**
 * Every bucket of the stack and what a person's deletion does there (docs/privacy.md). A bucket added
 * without a line here fails the test below: say whether it holds people's data and how it goes.
 */
const BUCKETS: Record<string, string> = {
  RawBucket: 'landing/ and curated/ rewritten without the person (steps landing_* and curated_*); exports/ by the exports step and a 7-day expiry',
  AnalyticsResultsBucket: "Athena result files: the listings' deleted once read, cached insight answers' by the insight_queries step, the rest expire",
  AccessLogs: 'S3 server access logs of the raw bucket: object keys (project, day, hour, export ID), no user ID',
  DashboardBucket: "the dashboard's static files",
};

let s: Synth;
beforeAll(() => {
  s = synthStack();
});

describe("the stack's side of a person's deletion", () => {
  it('has the deletions table, keyed by project and request time', () => {
    const tables = Object.entries(s.template.findResources('AWS::DynamoDB::Table')) as Array<[string, { Properties: Record<string, unknown> }]>;
    const deletions = tables.filter(([id]) => /deletions/i.test(id));
    expect(deletions).toHaveLength(1);
    expect(deletions[0]![1].Properties.KeySchema).toEqual([
      { AttributeName: TABLES.deletions.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLES.deletions.sortKey, KeyType: 'RANGE' },
    ]);
  });

  it('versions no bucket (or expires noncurrent versions within a day), so no old object version outlives the bound', () => {
    const buckets = Object.entries(s.template.findResources('AWS::S3::Bucket')) as Array<[string, { Properties: Record<string, any> }]>;
    expect(buckets.length).toBeGreaterThan(0);
    for (const [id, bucket] of buckets) {
      if (bucket.Properties.VersioningConfiguration?.Status !== 'Enabled') continue;
      const rules = (bucket.Properties.LifecycleConfiguration?.Rules ?? []) as Array<{
        Status: string;
        NoncurrentVersionExpiration?: { NoncurrentDays: number };
      }>;
      expect(
        rules.some((r) => r.Status === 'Enabled' && (r.NoncurrentVersionExpiration?.NoncurrentDays ?? Infinity) <= 1),
        `${id} is versioned without a noncurrent-version expiry of at most 1 day`,
      ).toBe(true);
    }
  });

  it('says for every table what a deletion does there, and lets the compaction job delete where a step removes the person', () => {
    const compactionRole = logicalId(s.stack.jobs['compact-landing'].fn.role! as never);
    const statements = inlinePolicies(s.template)
      .filter((p) => p.roles.includes(compactionRole))
      .flatMap((p) => p.document.Statement as Array<{ Action: string | string[]; Resource: unknown }>);
    const deletes = (table: TableName) =>
      statements.some(
        (st) =>
          [st.Action].flat().some((a) => a === 'dynamodb:DeleteItem' || a === 'dynamodb:BatchWriteItem') &&
          JSON.stringify(st.Resource).includes(JSON.stringify({ 'Fn::GetAtt': [logicalId(s.stack.tables[table]), 'Arn'] })),
      );
    expect(Object.keys(s.template.findResources('AWS::DynamoDB::Table')).sort()).toEqual(
      Object.values(s.stack.tables)
        .map((t) => logicalId(t))
        .sort(),
    );
    const removed: string[] = [];
    for (const [name, layout] of Object.entries(TABLES) as Array<[TableName, (typeof TABLES)[TableName]]>) {
      if (!('removedBy' in layout.personData)) continue;
      expect(DELETION_STEPS as readonly string[], name).toContain(layout.personData.removedBy);
      expect(deletes(name), `the compaction job cannot delete from ${name}`).toBe(true);
      removed.push(name);
    }
    expect(removed.sort()).toEqual(['assignments', 'exports', 'identities', 'insight_queries']);
  });

  it('says for every bucket what a deletion does there; the job rewrites landing and curated objects of the raw bucket', () => {
    const ids = Object.keys(s.template.findResources('AWS::S3::Bucket'));
    for (const bucketId of ids)
      expect(
        Object.keys(BUCKETS).some((name) => bucketId.startsWith(name)),
        `${bucketId} is not classified`,
      ).toBe(true);
    expect(ids).toHaveLength(Object.keys(BUCKETS).length);
    const compactionRole = logicalId(s.stack.jobs['compact-landing'].fn.role! as never);
    const raw = logicalId(s.stack.raw.bucket);
    const statements = inlinePolicies(s.template)
      .filter((p) => p.roles.includes(compactionRole))
      .flatMap((p) => p.document.Statement as Array<{ Action: string | string[]; Resource: unknown }>);
    for (const prefix of [LANDING_PREFIX, CURATED_PREFIX]) {
      for (const action of ['s3:PutObject', 's3:DeleteObject']) {
        const granted = statements.some(
          (st) => [st.Action].flat().includes(action) && JSON.stringify(st.Resource).includes(raw) && JSON.stringify(st.Resource).includes(`/${prefix}`),
        );
        expect(granted, `${action} on ${prefix}`).toBe(true);
      }
    }
  });
});

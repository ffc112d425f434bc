/**
 * What a person's deletion relies on in the stack (docs/decisions/erasure.md): the `deletions` table,
 * and no versioned bucket, so a rewritten or deleted object leaves no old version behind the 24-hour
 * bound (were one versioned, it would need a noncurrent-version expiry within the bound).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../lambdas/store/schema';
import { synthStack, type Synth } from './synth';

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
});

/**
 * The smoke test's compaction line (bin/smoke/raw-stream.ts): on AWS it reads each stream's compaction
 * state object and the landing hours (S3, mocked: no local runtime), passes with each stream's compacted
 * hour, and fails loudly when closed landing hours wait uncompacted (a compaction job failing or stopped).
 */
import { AthenaClient } from '@aws-sdk/client-athena';
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { athenaRawEvents } from '../../bin/smoke/raw-stream';
import { landingHour } from '../../lambdas/contract/landing';
import { hoursBehind } from '../../lambdas/domain/compaction-lag';

const s3 = mockClient(S3Client);
afterEach(() => s3.reset());
const HOUR = 3_600_000;

/** The bucket: landing hours per stream and the state objects' compacted hours (absent: no state yet). */
function bucket(hours: Record<string, string[]>, compacted: Record<string, string | undefined>) {
  s3.on(ListObjectsV2Command).callsFake((input: { Prefix: string }) => {
    const stream = /^landing\/(\w+)\//.exec(input.Prefix)![1]!;
    return { CommonPrefixes: (hours[stream] ?? []).map((h) => ({ Prefix: `landing/${stream}/arrival_hour=${h}/` })), IsTruncated: false };
  });
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const stream = /_compaction\/(\w+)\.json$/.exec(input.Key)![1]!;
    const through = compacted[stream];
    if (through === undefined) throw new NoSuchKey({ message: 'no such key', $metadata: {} });
    return { Body: { transformToString: async () => JSON.stringify({ compacted_through: through, retiring: [] }) } };
  });
  return athenaRawEvents(new AthenaClient({ region: 'eu-west-1' }), 'tally', 'tally', new S3Client({ region: 'eu-west-1' }), 'tally-raw');
}

describe('smoke test: the compaction job keeps up', () => {
  const now = Date.now();
  const old = landingHour(now - 30 * HOUR); // closed (a day and a quarter after it ended) well over an hour ago
  const recent = landingHour(now - 2 * HOUR); // not closed yet: still in the landing tail by design

  it("passes with each stream's compacted hour when no closed hour waits", async () => {
    const check = bucket({ events: [old, recent], identities: [recent] }, { events: old, identities: undefined });
    expect(await check.compaction!()).toBe(
      `events compacted through ${old}, 0 generation(s) to retire; identities compacted through nothing yet, 0 generation(s) to retire`,
    );
  });

  it('fails, naming the hours, the state object and where to look, when closed hours wait uncompacted', async () => {
    const check = bucket({ events: [old, recent], identities: [] }, { events: undefined, identities: undefined });
    await expect(check.compaction!()).rejects.toThrow(
      new RegExp(
        `^1 closed landing hour\\(s\\) of events wait uncompacted \\(${old} to ${old}; s3://tally-raw/curated/_compaction/events.json says compacted through nothing\\).*CompactionFailed`,
      ),
    );
  });

  it('hoursBehind: only closed hours after the compacted one, past the slack', () => {
    const t = Date.parse('2026-03-20T12:30:00Z');
    const hours = ['2026-03-20-08', '2026-03-20-09', '2026-03-20-10', '2026-03-20-11'];
    // Closed at 12:30 with a 60-minute close: through 10; with 30 minutes of slack: through 10 still (12:00 -> 10).
    expect(hoursBehind(hours, '2026-03-20-08', t, HOUR, 0)).toEqual(['2026-03-20-09', '2026-03-20-10']);
    expect(hoursBehind(hours, '2026-03-20-08', t, HOUR, 2 * HOUR)).toEqual([]);
    expect(hoursBehind(hours, undefined, t, HOUR, 0)).toEqual(['2026-03-20-08', '2026-03-20-09', '2026-03-20-10']);
  });
});

/**
 * The readers' views as Athena gets them (lambdas/adapters/athena-compaction.ts viewStatements: the
 * exact CREATE OR REPLACE VIEW texts the deploy and the compaction job run, qualified with the Glue
 * database) run on DuckDB over the files the local path wrote in the S3 layout: the landing and curated
 * tables declared as schema `tally` over landing/ and the committed curated generations. Events sent
 * twice (a copy landing after the original was compacted), are counted once by tally.events and
 * tally.unique_events, as the local readers count them; tally.events_by_arrival has every landed copy
 * with its arrival hour. (The Trino grammar test parses the same texts.)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewStatements } from '../../lambdas/adapters/athena-compaction';
import {
  CURATED_COLUMNS,
  curatedFiles,
  curatedSelect,
  landingHourFiles,
  landingSelect,
  readCompactionState,
  STREAM_COLUMNS,
} from '../../lambdas/adapters/duckdb-stream-views';
import { curatedTable, landingTable, STREAM_NAMES, type StreamName } from '../../lambdas/contract/landing';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;
let now = Date.parse('2026-05-04T10:10:00.000Z');
let duck: TestDuckDb;

beforeAll(async () => {
  duck = await testDuckDb();
  ({ stack, project, key } = await startTestProject('athena views', { clock: () => now }));
  const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
  const event = (id: string, minute: number) => ({
    event_id: id,
    name: 'view',
    user_id: `u-${id}`,
    timestamp: `2026-05-04T09:${String(minute).padStart(2, '0')}:00Z`,
  });
  await send([event('a', 1), event('b', 2)]);
  await send([{ name: '$identify', user_id: 'user-1', timestamp: '2026-05-04T09:30:00Z', properties: { $anonymous_id: 'u-a' } }]);
  // Compacted: the 10:00 hour, closed at 11:01.
  now = Date.parse('2026-05-04T11:10:00.000Z');
  await stack.compaction.runNow(now);
  // A new event in the 11:00 landing hour, not compacted; and a copy of the compacted event a landing
  // there too (as Firehose's own retries or a client resend past the ledger can land one).
  await send([event('c', 3)]);
  const hour10 = (await landingHourFiles(stack.dataDir, 'events')).get('2026-05-04-10')!;
  const line = hour10.flatMap((f) => readFileSync(f, 'utf8').split('\n')).find((l) => l.includes('"event_id":"a"'))!;
  const dir = join(stack.dataDir, 'landing/events/arrival_hour=2026-05-04-11');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'copy.ndjson'), `${line}\n`);
});
afterAll(async () => {
  duck?.close();
  await stack?.stop();
});

/** The landing and curated tables in schema tally over the data directory, then the views as Athena runs them. */
async function setup(): Promise<string> {
  const statements = ['CREATE SCHEMA IF NOT EXISTS tally'];
  const through: Record<string, string | undefined> = {};
  for (const stream of STREAM_NAMES as readonly StreamName[]) {
    const state = await readCompactionState(stack.dataDir, stream);
    through[stream] = state.compactedThrough;
    const landing = [...(await landingHourFiles(stack.dataDir, stream)).values()].flat();
    const curated = await curatedFiles(stack.dataDir, stream, { projectId: project });
    statements.push(`CREATE OR REPLACE VIEW tally.${landingTable(stream)} AS ${landingSelect(landing, STREAM_COLUMNS[stream])}`);
    statements.push(`CREATE OR REPLACE VIEW tally.${curatedTable(stream)} AS ${curatedSelect(curated, CURATED_COLUMNS[stream])}`);
  }
  expect(through.events).toBe('2026-05-04-10');
  statements.push(...viewStatements('tally', through as Record<StreamName, string | undefined>));
  return statements.map((s) => `${s};`).join('\n');
}

describe("the views' Athena DDL on DuckDB over files in the layout", () => {
  it('counts each event once in events and unique_events, curated and landing tail together', async () => {
    const sql = await setup();
    const count = async (view: string) =>
      (
        await duck.rows(
          `SELECT event_id, count(*) AS n FROM tally.${view} WHERE project_id = '${project}' AND name = 'view' GROUP BY event_id ORDER BY event_id`,
          sql,
        )
      ).map((r) => `${r.event_id}:${r.n}`);
    expect(await count('events')).toEqual(['a:1', 'b:1', 'c:1']);
    expect(await count('unique_events')).toEqual(['a:1', 'b:1', 'c:1']);
    // The landing tail alone (what insights read next to curated_events): c, not a's copy of a curated event.
    expect(await count('events_tail')).toEqual(['c:1']);
    // By arrival: every landed copy of the landing hours, with its hour (a's resent copy included).
    const arrivals = await duck.rows(
      `SELECT event_id, arrival_hour FROM tally.events_by_arrival WHERE project_id = '${project}' AND name = 'view' ORDER BY arrival_hour, event_id`,
      sql,
    );
    expect(arrivals).toEqual([
      { event_id: 'a', arrival_hour: '2026-05-04-10' },
      { event_id: 'b', arrival_hour: '2026-05-04-10' },
      { event_id: 'a', arrival_hour: '2026-05-04-11' },
      { event_id: 'c', arrival_hour: '2026-05-04-11' },
    ]);
    const links = await duck.rows(`SELECT id, canonical_id FROM tally.identities WHERE project_id = '${project}'`, sql);
    expect(links.length).toBeGreaterThan(0);
  });
});

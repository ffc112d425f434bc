/**
 * The insight queries' table and the local engine's result files expire together (docs/decisions/
 * insights.md, "Cache"): a query is gone 7 days after it was created, on dynalite (no TTL) as on
 * DynamoDB (whose TTL deletes within days, reads returning the item until then); a new query may take
 * an expired one's place; the local result files of expired queries are deleted a day later.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbInsightEngine } from '../../lambdas/adapters/duckdb-insights';
import type { InsightQueryRecord } from '../../lambdas/ports';
import { DynamoInsightQueryStore } from '../../lambdas/store/insight-query-store';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

const DAY = 86_400_000;
const CREATED = Date.parse('2026-05-01T10:00:00.000Z');
let dynamo: TestDynamo;
let store: DynamoInsightQueryStore;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  store = new DynamoInsightQueryStore(dynamo.ddb, dynamo.table('insight_queries'));
});
afterAll(() => dynamo.close());

const record = (queryId: string, createdMs: number, sql = 'SELECT 1'): InsightQueryRecord => ({
  project_id: 'p1',
  query_id: queryId,
  kind: 'trends',
  definition: { series: [{ event: 'view' }] },
  sql,
  engine: 'duckdb',
  data_through: new Date(createdMs).toISOString(),
  execution_id: queryId,
  state: 'succeeded',
  bytes_scanned: null,
  error: null,
  attempt: 1,
  created_at: new Date(createdMs).toISOString(),
  updated_at: new Date(createdMs).toISOString(),
});

describe('insight queries expire after 7 days', () => {
  it('finds a query until 7 days after its creation, then nothing, though the item is still stored', async () => {
    const id = 'a'.repeat(32);
    expect(await store.create(record(id, CREATED))).toBe(true);
    expect(await store.get('p1', id, CREATED + 7 * DAY - 1)).toMatchObject({ query_id: id, definition: { series: [{ event: 'view' }] } });
    expect(await store.get('p1', id, CREATED + 7 * DAY)).toBeUndefined();
    // Another project never finds it.
    expect(await store.get('p2', id, CREATED)).toBeUndefined();
  });

  it('lets a new query take the place of an expired one, but not of a live one', async () => {
    const id = 'b'.repeat(32);
    expect(await store.create(record(id, CREATED, 'SELECT old'))).toBe(true);
    expect(await store.create(record(id, CREATED + DAY, 'SELECT live'))).toBe(false);
    expect(await store.create(record(id, CREATED + 7 * DAY, 'SELECT new'))).toBe(true);
    expect((await store.get('p1', id, CREATED + 7 * DAY))?.sql).toBe('SELECT new');
  });
});

describe('the local engine deletes result files of expired queries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-insight-results-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('at its first start, deletes result files older than 8 days and keeps newer ones and files of other names', async () => {
    const results = join(dir, 'insight-results');
    mkdirSync(results, { recursive: true });
    const age = (name: string, days: number) => {
      writeFileSync(join(results, name), '[]');
      const at = (Date.now() - days * DAY) / 1000;
      utimesSync(join(results, name), at, at);
    };
    age(`${'c'.repeat(32)}.json`, 9);
    age(`${'d'.repeat(32)}-2.json`, 8.5);
    age(`${'e'.repeat(32)}.json`, 7.5);
    age('notes.txt', 30);
    // Left aside by a process stopped between writing a result and renaming it into place.
    age(`${'c'.repeat(32)}.json.0b5c7c0e-7a6e-4d5e-9d3e-2f1a0c9b8a7d.tmp`, 9);
    const engine = new DuckDbInsightEngine(dir, { threads: 1 });
    try {
      const started = await engine.start({ sql: 'SELECT 42 AS answer', projectId: 'p1', fromDt: '2026-05-01', toDt: '2026-05-01' }, 'f'.repeat(32));
      expect(started.state).toBe('succeeded');
      expect(await engine.rows('f'.repeat(32))).toEqual([{ answer: 42 }]);
    } finally {
      await engine.close();
    }
    expect(readdirSync(results).sort()).toEqual([`${'e'.repeat(32)}.json`, `${'f'.repeat(32)}.json`, 'notes.txt']);
  });
});

describe('the local engine writes a result file whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-insight-race-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('two requests starting the same query at once never let a reader see the file half written', async () => {
    const engine = new DuckDbInsightEngine(dir, { threads: 1 });
    const token = 'a'.repeat(32);
    // A result of some size: its file takes more than one write.
    const query = { sql: "SELECT range AS n, repeat('x', 200) AS pad FROM range(20000)", projectId: 'p1', fromDt: '2026-05-01', toDt: '2026-05-01' };
    try {
      expect((await engine.start(query, token)).state).toBe('succeeded');
      let done = false;
      const reads: Array<number | string> = [];
      const reading = (async () => {
        while (!done) {
          reads.push(
            await engine.rows(token).then(
              (rows) => rows.length,
              (err: unknown) => String(err),
            ),
          );
        }
      })();
      await Promise.all(Array.from({ length: 6 }, () => engine.start(query, token)));
      done = true;
      await reading;
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.filter((r) => r !== 20000)).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 60_000);
});

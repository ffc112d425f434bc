/**
 * A data directory whose curated files predate the curated events' timestamp_minute column
 * (docs/decisions/columnar-events.md, "Local data from before"): test/fixtures/
 * data-dir-before-timestamp-minute.tar.gz was made by `npm start` of the main branch before the
 * column (a project, a key, events of five days and a login, compacted into five curated partitions).
 * A start killed while converting left a half-written file beside one of them. Started on it, the
 * server rewrites each curated events file with the column, rows and order unchanged, and the insights
 * that read the column count every event; a second start converts nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { quoteLiteral } from '../../lambdas/adapters/sql/render';
import { startTestStack, type TestStack } from '../helpers/local';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-before-minute-'));
const duckDb = new InProcessDuckDb();
let stack: TestStack | undefined;
let project: string;
let files: string[];
const before = new Map<string, unknown[]>();

/** Every .parquet file under a directory. */
function parquetUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.parquet'))
    .map((f) => join(dir, f))
    .sort();
}

const columnsOf = (file: string) =>
  duckDb.use([], async (s) => (await s.rows(`SELECT name FROM parquet_schema(${quoteLiteral(file)}) WHERE name <> 'duckdb_schema'`)).map((r) => r.name));
const rowsOf = (file: string, select = '*') =>
  duckDb.use([], (s) => s.rows(`SELECT ${select} FROM read_parquet(${quoteLiteral(file)}, hive_partitioning = false)`));

beforeAll(async () => {
  execFileSync('tar', ['-xzf', join(import.meta.dirname, '..', 'fixtures', 'data-dir-before-timestamp-minute.tar.gz'), '-C', dataDir]);
  files = parquetUnder(join(dataDir, 'curated', 'events'));
  for (const file of files) before.set(file, await rowsOf(file));
  // What a start killed mid-conversion leaves: a half-written file beside the one it converts.
  writeFileSync(`${files[0]}.converting`, 'PAR1 half');
  stack = await startTestStack({ dataDir, inMemoryDynamo: false });
  project = (await stack.admin('GET', '/admin/v1/projects')).body.projects[0].id as string;
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await duckDb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('curated files from before timestamp_minute', () => {
  it('are rewritten at start with the column, their rows and order unchanged, and nothing half-written left', async () => {
    expect(files).toHaveLength(5);
    for (const file of files) {
      expect(await columnsOf(file)).toContain('timestamp_minute');
      const rows = await rowsOf(file);
      expect(rows.map(({ timestamp_minute: _, ...rest }) => rest)).toEqual(before.get(file));
      expect(rows.every((r) => r.timestamp_minute === String(r.timestamp).slice(0, 16))).toBe(true);
      expect(readdirSync(dirname(file))).toEqual(['data_0.parquet']);
    }
    // The identities' curated files have no such column and are left as they were.
    for (const file of parquetUnder(join(dataDir, 'curated', 'identities'))) expect(await columnsOf(file)).not.toContain('timestamp_minute');
  });

  it('count every event in a trend, which reads the column', async () => {
    const days = [...new Set([...before.values()].flat().map((r) => String((r as { timestamp: string }).timestamp).slice(0, 10)))].sort();
    const res = await stack!.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [{ event: 'page_view' }, { event: 'purchase' }, { event: 'page_view', measure: 'users' }],
      date_from: days[0],
      date_to: days.at(-1),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [views, purchases, viewers] = res.body.result.lines;
    expect(views.values).toEqual([6, 6, 6, 6, 6]);
    expect(purchases.values).toEqual([3, 3, 3, 3, 3]);
    expect(viewers.values).toEqual([6, 6, 6, 6, 6]);
  });

  it('are not rewritten again by the next start', async () => {
    const mtimes = files.map((f) => statSync(f).mtimeMs);
    await stack!.stop();
    stack = await startTestStack({ dataDir, inMemoryDynamo: false });
    expect(files.map((f) => statSync(f).mtimeMs)).toEqual(mtimes);
  });
});

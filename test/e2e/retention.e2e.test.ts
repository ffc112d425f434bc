/**
 * Event retention through the local server (TALLY_KEEP_EVENTS_DAYS, docs/decisions/retention.md):
 * after the compaction job's cut, events of days older than the retention are gone from insights and
 * from the analyst views (DuckDB over views.sql), younger ones stay; a running experiment whose window
 * the cut will reach says so in its results; and no IP address the requests came from is stored
 * anywhere: not in the data directory's files (landing, curated, state, DynamoDB tables), not in the logs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DynamoDBClient, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MmdbGeoLookup } from '../../lambdas/adapters/geo-mmdb';
import { setLogWriter } from '../../lambdas/logging/log';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { ADMIN_TOKEN, startTestProject, type TestStack } from '../helpers/local';

const DB = join(import.meta.dirname, '..', 'fixtures', 'geoip', 'GeoLite2-City-Test.mmdb');
const DAY = 86_400_000;
/** In the MaxMind test database: London. Sent as the client's address through X-Forwarded-For. */
const CLIENT_IP = '81.2.69.142';
const PROXY_IP = '10.203.77.41';
/** An admin's address: the audit log keeps its /24 network only. */
const ADMIN_IP = '81.2.69.160';

let stack: TestStack;
let project: string;
let key: string;
let duck: TestDuckDb;
let dynamoEndpoint = '';
let now = Date.parse('2026-06-01T10:00:00.000Z');
const logged: string[] = [];
const written: string[] = [];

beforeAll(async () => {
  vi.stubEnv('TALLY_LOG_LEVEL', 'debug');
  setLogWriter((record) => logged.push(JSON.stringify(record)));
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    });
  }
  duck = await testDuckDb();
  ({ stack, project, key } = await startTestProject('retention', {
    clock: () => now,
    keepEventsDays: 90,
    trustProxy: true,
    geo: new MmdbGeoLookup(DB),
    interposeDynamo: async (endpoint) => (dynamoEndpoint = endpoint),
  }));
  const headers = { 'X-Forwarded-For': `${CLIENT_IP}, ${PROXY_IP}` };
  const res = await stack.post(
    '/v1/events',
    key,
    {
      events: [
        { name: 'view', user_id: 'ann', timestamp: '2026-01-10T12:00:00Z' },
        { name: 'view', user_id: 'ann', timestamp: '2026-02-20T12:00:00Z' },
        { name: 'view', user_id: 'bob', timestamp: '2026-05-20T12:00:00Z' },
        { name: 'view', user_id: 'bob', timestamp: '2026-05-31T12:00:00Z' },
        { name: '$identify', user_id: 'bob', timestamp: '2026-05-31T12:01:00Z', properties: { $anonymous_id: 'anon-bob', $email: 'bob@example.com' } },
      ],
    },
    { headers },
  );
  expect(res.status, res.text).toBe(204);
});
afterAll(async () => {
  await stack?.stop();
  await duck?.close?.();
  setLogWriter(undefined);
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const RANGE = { date_from: '2026-01-01', date_to: '2026-05-31', interval: 'week' };
/** The trends insight's views over January to May: its total. */
async function viewsTotal(): Promise<number> {
  const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, { series: [{ event: 'view' }], ...RANGE });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result.lines[0].total;
}
async function analystDays(): Promise<string[]> {
  const rows = await duck.rows(
    `SELECT dt, count(*) AS n FROM events WHERE project_id = '${project}' AND name = 'view' GROUP BY dt ORDER BY dt`,
    readFileSync(stack.analystViews, 'utf8'),
  );
  return rows.map((r) => `${String(r.dt)}:${String(r.n)}`);
}

describe('event retention', () => {
  it('removes events of days older than the retention from insights and the analyst views; younger ones stay', async () => {
    expect(await viewsTotal()).toBe(4);
    expect(await analystDays()).toEqual(['2026-01-10:1', '2026-02-20:1', '2026-05-20:1', '2026-05-31:1']);
    // The events landed in the hour they arrived: compacted an hour and a minute later.
    now += 2 * 3_600_000;
    await stack.compaction.runNow(now);
    // The first run cuts at 2026-06-01 minus 90 days: 2026-03-03 is the first day kept.
    expect(await analystDays()).toEqual(['2026-05-20:1', '2026-05-31:1']);
    expect(await viewsTotal()).toBe(2);
    expect(readdirSync(join(stack.dataDir, 'catalog', 'curated_events', `project_id=${project}`)).sort()).toEqual(['dt=2026-05-20', 'dt=2026-05-31']);
    // Identity links are not events: kept.
    expect(readdirSync(join(stack.dataDir, 'catalog', 'curated_identities')).length).toBeGreaterThan(0);
  });

  it('warns in the results of a running experiment before the cut reaches its window', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const created = await stack.admin('POST', base, { name: 'Long runner', goal_event: 'purchase', variants: ['control', 'treatment'] });
    const startedAt = new Date(now - 70 * DAY).toISOString();
    expect((await stack.admin('POST', `${base}/${created.body.id}/start`, { started_at: startedAt })).status).toBe(200);
    expect((await stack.admin('POST', `${base}/${created.body.id}/results/refresh`)).status).toBe(200);
    const results = await stack.admin('GET', `${base}/${created.body.id}/results`);
    expect(results.status).toBe(200);
    // Started 2026-03-23, its results read from 2026-03-09 (CUPED's 14-day look-back): that day goes
    // when the boundary passes it, 91 days later, within the notice's 14 days.
    expect(results.body.retention_notice).toEqual({
      kept_from: '2026-03-03',
      window_from: '2026-03-09',
      removes_day: '2026-03-09',
      removes_on: '2026-06-08',
      message: expect.stringContaining('on 2026-06-08 the retention cut removes the events of 2026-03-09'),
    });
    // One that started recently has none.
    const fresh = await stack.admin('POST', base, { name: 'Fresh', goal_event: 'purchase', variants: ['control', 'treatment'] });
    expect((await stack.admin('POST', `${base}/${fresh.body.id}/start`)).status).toBe(200);
    expect((await stack.admin('POST', `${base}/${fresh.body.id}/results/refresh`)).status).toBe(200);
    const freshResults = await stack.admin('GET', `${base}/${fresh.body.id}/results`);
    expect(freshResults.status).toBe(200);
    expect(freshResults.body).not.toHaveProperty('retention_notice');
  });

  it('stores no IP address: not in any file of the data directory, any DynamoDB item or any log line', async () => {
    // The address reached the server: the events were located from it.
    expect(stack.rawEvents(project).map((e) => e.city)).toContain('London');
    // An admin write from another address: audited with its network, not the address.
    const renamed = await fetch(`${stack.url}/admin/v1/projects/${project}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json', 'X-Forwarded-For': ADMIN_IP },
      body: JSON.stringify({ name: 'retention renamed' }),
    });
    expect(renamed.status).toBe(200);
    const audit = await stack.admin('GET', '/admin/v1/audit');
    expect(audit.body.entries.find((e: { method: string; route: string }) => e.method === 'PATCH')?.network).toBe('81.2.69.0/24');
    const texts: Array<[string, string]> = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const info = statSync(path, { throwIfNoEntry: false });
        if (!info) continue;
        if (info.isDirectory()) walk(path);
        else if (info.isFile()) {
          const bytes = readFileSync(path);
          texts.push([path, (name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('latin1')]);
        }
      }
    };
    walk(stack.dataDir);
    expect(texts.filter(([path]) => path.endsWith('.ndjson')).length).toBeGreaterThan(0);
    // Parquet pages are compressed: their rows are read back as text.
    const parquet = texts.filter(([path]) => path.endsWith('.parquet')).map(([path]) => path);
    expect(parquet.length).toBeGreaterThan(0);
    for (const path of parquet) {
      const rows = await duck.rows(`SELECT * FROM read_parquet('${path}')`);
      texts.push([`${path} (rows)`, JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v))]);
    }
    const ddb = new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const tables = (await ddb.send(new ListTablesCommand({}))).TableNames ?? [];
    expect(tables.length).toBeGreaterThan(5);
    for (const table of tables) {
      const items = (await ddb.send(new ScanCommand({ TableName: table }))).Items ?? [];
      texts.push([`dynamodb:${table}`, JSON.stringify(items)]);
    }
    ddb.destroy();
    texts.push(['logs', logged.join('\n')], ['stdout/stderr', written.join('')]);
    expect(logged.length).toBeGreaterThan(0);
    for (const ip of [CLIENT_IP, PROXY_IP, ADMIN_IP]) {
      expect(texts.filter(([, text]) => text.includes(ip)).map(([path]) => path)).toEqual([]);
    }
  });
});

/**
 * The Glue tables of the synthesized template read what Tally writes. Athena reads each table's files
 * with the table's declared columns, types, SerDe and partition projection; here DuckDB reads the files
 * the local path wrote (the same layout as S3) with exactly those declarations:
 *  - JSON tables (OpenX JsonSerDe): every record's members are declared columns (case-insensitively, the
 *    SerDe's default) or partition columns, every declared column is written, and read_json with the
 *    declared types takes every record without an error;
 *  - Parquet tables: the files' columns and physical types are the declared ones (Athena reads Parquet
 *    by column name);
 *  - partitions: the folders are the declared partition keys, in order, as storage.location.template
 *    names them, with values the projection's format and range accept.
 * A declared type the writer does not produce (a number column over text, a column the writer
 * renamed) fails here instead of as HIVE_BAD_DATA or an empty column on Athena.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { startTestProject, type TestStack } from '../helpers/local';
import { deployedText, resourcesOf, type CfnResource } from '../helpers/template-texts';

/** Hive column types as DuckDB reads them. */
const DUCK_TYPE: Record<string, string> = { string: 'VARCHAR', boolean: 'BOOLEAN', double: 'DOUBLE', bigint: 'BIGINT', int: 'INTEGER' };
const JSON_SERDE = 'org.openx.data.jsonserde.JsonSerDe';
const PARQUET_SERDE = 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe';
/** Java DateTimeFormatter patterns of the projections, as regular expressions. */
const PROJECTION_FORMAT: Record<string, RegExp> = { 'yyyy-MM-dd': /^\d{4}-\d{2}-\d{2}$/, 'yyyy-MM-dd-HH': /^\d{4}-\d{2}-\d{2}-\d{2}$/ };

interface Table {
  name: string;
  prefix: string;
  serde: string;
  columns: Array<{ name: string; type: string }>;
  partitions: string[];
  parameters: Record<string, string>;
}

function tableOf(resource: CfnResource): Table {
  const input = resource.Properties.TableInput;
  const location = deployedText(input.StorageDescriptor.Location, () => 'raw-bucket');
  return {
    name: input.Name,
    prefix: location.replace('s3://raw-bucket/', ''),
    serde: input.StorageDescriptor.SerdeInfo.SerializationLibrary,
    columns: input.StorageDescriptor.Columns.map((c: { Name: string; Type: string }) => ({ name: c.Name, type: c.Type })),
    partitions: input.PartitionKeys.map((k: { Name: string }) => k.Name),
    parameters: Object.fromEntries(Object.entries(input.Parameters as Record<string, unknown>).map(([k, v]) => [k, deployedText(v, () => 'raw-bucket')])),
  };
}

/** A projection range's start in its format: a date, or NOW-<n>DAYS as of the test's clock (Athena evaluates NOW when it plans a query). */
function rangeStart(start: string, format: string): string {
  const relative = /^NOW-(\d+)DAYS$/.exec(start);
  if (!relative) return start;
  const iso = new Date(now - Number(relative[1]) * 86_400_000).toISOString();
  return format === 'yyyy-MM-dd-HH' ? `${iso.slice(0, 10)}-${iso.slice(11, 13)}` : iso.slice(0, 10);
}

function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(suffix)) out.push(path);
    }
  };
  walk(dir);
  return out;
}

let stack: TestStack;
let project: string;
let key: string;
let now = Date.parse('2026-05-04T09:00:00.000Z');
let duck: TestDuckDb;
const rows = (sql: string) => duck.rows(sql);
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

beforeAll(async () => {
  duck = await testDuckDb();
  ({ stack, project, key } = await startTestProject('glue types', { clock: () => now }));
  const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
  const experiments = `/admin/v1/projects/${project}/experiments`;
  const created = await stack.admin('POST', experiments, {
    name: 'Types',
    goal_event: 'purchase',
    variants: ['control', 'treatment'],
    metrics: [{ name: 'Revenue', kind: 'sum', event: 'purchase', property: 'revenue', role: 'secondary' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect((await stack.admin('POST', `${experiments}/${id}/start`)).status).toBe(200);
  const exposure = (user: string, variant: string, timestamp: string) => ({
    name: '$experiment_exposure',
    user_id: user,
    timestamp,
    properties: { $experiment_name: 'Types', $variant: variant },
  });
  // Every kind of field the writer fills: platform and versions, properties of every JSON type, identify.
  now = Date.parse('2026-05-04T12:00:00.000Z');
  await send([
    exposure('u-1', 'control', '2026-05-04T10:00:00Z'),
    exposure('u-2', 'treatment', '2026-05-04T10:05:00Z'),
    {
      name: 'purchase',
      user_id: 'u-2',
      timestamp: '2026-05-04T11:00:00Z',
      properties: { revenue: 12.5, items: [1, 2], nested: { a: null }, ok: true, note: 'ünï "q"' },
    },
    {
      name: '$identify',
      user_id: 'user-1',
      timestamp: '2026-05-04T11:30:00Z',
      properties: { $anonymous_id: 'u-1', email: 'a@example.com', name: 'A' },
      platform: 'ios',
      app_version: '1.2.3',
    },
  ]);
  expect((await stack.admin('POST', `${experiments}/${id}/results/refresh`)).status).toBe(200);
  // Days later: the closed days roll up into a base generation (results-base).
  now = Date.parse('2026-05-07T12:00:00.000Z');
  await send([{ name: 'purchase', user_id: 'user-1', timestamp: '2026-05-07T11:00:00Z', properties: { revenue: '7' } }]);
  expect((await stack.admin('POST', `${experiments}/${id}/results/refresh`)).status).toBe(200);
  // An hour on: a state slice after the base (results-state).
  now = Date.parse('2026-05-07T13:00:00.000Z');
  await send([
    exposure('u-3', 'treatment', '2026-05-07T12:30:00Z'),
    { name: 'purchase', user_id: 'u-3', timestamp: '2026-05-07T12:40:00Z', properties: { revenue: 3 } },
    // An identity link landing in a 2026-05-07 hour, kept in landing after compaction.
    { name: '$identify', user_id: 'user-3', timestamp: '2026-05-07T12:50:00Z', properties: { $anonymous_id: 'u-3' } },
  ]);
  expect((await stack.admin('POST', `${experiments}/${id}/results/refresh`)).status).toBe(200);
  // Two hours on, every landing hour is closed: compaction writes the curated partitions (and deletes
  // the landing hours past the 3-day retention: 2026-05-04's; 2026-05-07's stay).
  now = Date.parse('2026-05-07T15:00:00.000Z');
  await stack.compaction.runNow(now);
});
afterAll(async () => {
  duck?.close();
  await stack?.stop();
});

describe('Glue tables of the template over the files the local path wrote', () => {
  const tables = () => resourcesOf('AWS::Glue::Table').map(([, r]) => tableOf(r));

  it('knows every table of the template and finds files for each', () => {
    const known = tables().map((t) => `${t.name}: ${t.serde}`);
    expect(known.sort()).toEqual([
      `curated_events: ${PARQUET_SERDE}`,
      `curated_identities: ${PARQUET_SERDE}`,
      `landing_events: ${JSON_SERDE}`,
      `landing_identities: ${JSON_SERDE}`,
      `results_base: ${PARQUET_SERDE}`,
      `results_state: ${PARQUET_SERDE}`,
    ]);
    for (const t of tables()) expect(filesUnder(join(stack.dataDir, t.prefix), t.serde === JSON_SERDE ? '.ndjson' : '.parquet'), t.name).not.toEqual([]);
  });

  it('JSON tables: every record reads with the declared columns and types, and nothing written is undeclared', async () => {
    for (const t of tables().filter((x) => x.serde === JSON_SERDE)) {
      const files = filesUnder(join(stack.dataDir, t.prefix), '.ndjson');
      const declared = new Set(t.columns.map((c) => c.name.toLowerCase()));
      const partitions = new Set(t.partitions);
      const written = new Set<string>();
      for (const file of files) {
        for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
          for (const member of Object.keys(JSON.parse(line) as object)) {
            written.add(member.toLowerCase());
            expect(declared.has(member.toLowerCase()) || partitions.has(member), `${t.name}: ${member} is written but not declared`).toBe(true);
          }
        }
      }
      for (const c of declared) expect(written, `${t.name}: column ${c} is declared but never written`).toContain(c);
      const columns = t.columns.map((c) => `${literal(c.name)}: ${literal(DUCK_TYPE[c.type] ?? `unknown Hive type ${c.type}`)}`).join(', ');
      // No ignore_errors: a value the declared type cannot hold fails the read.
      const [count] = await rows(
        `SELECT count(*) AS n FROM read_json([${files.map(literal).join(', ')}], format = 'newline_delimited', columns = {${columns}}, hive_partitioning = false)`,
      );
      const lines = files.reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').filter(Boolean).length, 0);
      expect(Number(count!.n), t.name).toBe(lines);
    }
  });

  it('Parquet tables: the files hold the declared columns with the declared types', async () => {
    for (const t of tables().filter((x) => x.serde === PARQUET_SERDE)) {
      const files = filesUnder(join(stack.dataDir, t.prefix), '.parquet');
      const described = await rows(`DESCRIBE SELECT * FROM read_parquet([${files.map(literal).join(', ')}], union_by_name = false, hive_partitioning = false)`);
      const inFiles = Object.fromEntries(described.map((r) => [r.column_name as string, r.column_type as string]));
      const declared = Object.fromEntries(t.columns.map((c) => [c.name, DUCK_TYPE[c.type]]));
      // The local writer also keeps the partition columns in the file (Athena's INSERT INTO does not);
      // Athena takes partition values from the path, so they must at least agree with it.
      const extra = Object.keys(inFiles).filter((c) => !(c in declared));
      expect(
        extra.filter((c) => !t.partitions.includes(c)),
        `${t.name}: undeclared columns`,
      ).toEqual([]);
      expect(Object.fromEntries(Object.entries(inFiles).filter(([c]) => c in declared)), t.name).toEqual(declared);
      for (const file of files) {
        if (extra.length === 0) break;
        const folders = Object.fromEntries(
          relative(join(stack.dataDir, t.prefix), file)
            .split('/')
            .slice(0, -1)
            .map((f) => f.split('=') as [string, string]),
        );
        const values = await rows(`SELECT DISTINCT ${extra.map((c) => `"${c}"`).join(', ')} FROM read_parquet(${literal(file)}, hive_partitioning = false)`);
        expect(values, file).toEqual([Object.fromEntries(extra.map((c) => [c, folders[c]]))]);
      }
    }
  });

  it('partitions: the folders are the declared keys in order, as the location template names them, with values the projection accepts', () => {
    for (const t of tables()) {
      const files = filesUnder(join(stack.dataDir, t.prefix), t.serde === JSON_SERDE ? '.ndjson' : '.parquet');
      // A table without projection (curated_<stream>) has its partitions' locations registered by the
      // compaction job under the table's location, one folder per key, in order.
      const template = t.parameters['storage.location.template'] ?? `s3://raw-bucket/${t.prefix}${t.partitions.map((k) => `${k}=\${${k}}/`).join('')}`;
      expect(template.startsWith(`s3://raw-bucket/${t.prefix}`), template).toBe(true);
      for (const file of files) {
        const folders = relative(join(stack.dataDir, t.prefix), file).split('/').slice(0, -1);
        // A table over a prefix reads its partitions' subfolders too (events holds events_by_arrival's received=).
        const own = folders.slice(0, t.partitions.length);
        expect(
          own.map((f) => f.split('=')[0]),
          `${t.name}: ${file}`,
        ).toEqual(t.partitions);
        const values = Object.fromEntries(own.map((f) => f.split('=') as [string, string]));
        const located = template.replace(/\$\{(\w+)\}/g, (_, k: string) => values[k]!);
        expect(`s3://raw-bucket/${relative(stack.dataDir, file)}`.startsWith(located), `${located} holds ${file}`).toBe(true);
        for (const [k, v] of Object.entries(values)) {
          const type = t.parameters[`projection.${k}.type`];
          if (type === 'date') {
            expect(v, `${t.name}.${k}`).toMatch(PROJECTION_FORMAT[t.parameters[`projection.${k}.format`]!]!);
            const min = rangeStart(t.parameters[`projection.${k}.range`]!.split(',')[0]!, t.parameters[`projection.${k}.format`]!);
            expect(v >= min, `${t.name}.${k} = ${v} is in the projection's range (from ${min})`).toBe(true);
          } else if (type !== undefined) {
            expect(type, `${t.name}.${k}`).toBe('injected');
          }
        }
      }
    }
  });
});

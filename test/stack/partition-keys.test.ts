/**
 * No per-event write keyed by project (issue 12): every table or index an ingestion function writes
 * once per event must spread a project's traffic over many partitions. DynamoDB caps a partition near
 * 1,000 write units per second, and a throttled index throttles the table's writes: a partition key
 * shared by a whole project's events would cap a project's ingestion rate, whatever it pays.
 *
 * Checked on the synthesized template (what deploys), for every table the ingestion routes may write
 * (from the route manifest), and for the event ledger in particular.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENCIES, ROUTES } from '../../lambdas/routes';
import { TABLES, type TableName } from '../../lambdas/store/schema';
import { synthStack, type Synth } from './synth';

/** Attributes whose value is the same for a whole project's traffic (or for every project's). */
const PROJECT_WIDE = new Set(['project_id', 'project', 'source', 'sdk', 'dt', 'day', 'date', 'state']);

let s: Synth;
beforeAll(() => {
  s = synthStack();
});

type KeySchema = Array<{ AttributeName: string; KeyType: string }>;
interface TableProps {
  KeySchema: KeySchema;
  GlobalSecondaryIndexes?: Array<{ IndexName: string; KeySchema: KeySchema }>;
}

function tableProps(name: TableName): TableProps {
  const logicalId = s.stack.getLogicalId(s.stack.tables[name].node.defaultChild as never);
  return s.template.toJSON().Resources[logicalId].Properties as TableProps;
}

/** Every partition key a write to the table touches: the table's and each index's. */
function partitionKeys(name: TableName): Array<{ where: string; attribute: string }> {
  const p = tableProps(name);
  const hash = (schema: KeySchema) => schema.find((k) => k.KeyType === 'HASH')!.AttributeName;
  return [
    { where: name, attribute: hash(p.KeySchema) },
    ...(p.GlobalSecondaryIndexes ?? []).map((g) => ({ where: `${name}.${g.IndexName}`, attribute: hash(g.KeySchema) })),
  ];
}

/** The tables the ingestion routes may write (their readWrite table dependencies). */
const INGESTION_TABLES = [
  ...new Set(
    ROUTES.filter((r) => r.path.endsWith('/events') && r.method === 'POST').flatMap((r) =>
      Object.entries(r.uses)
        .filter(([dep, level]) => level === 'readWrite' && 'table' in DEPENDENCIES[dep as keyof typeof DEPENDENCIES])
        .map(([dep]) => (DEPENDENCIES[dep as keyof typeof DEPENDENCIES] as { table: TableName }).table),
    ),
  ),
];

describe('no per-event write keyed by project', () => {
  it('finds the ingestion tables in the manifest (the event ledger among them)', () => {
    expect(INGESTION_TABLES).toContain('events');
  });

  for (const table of INGESTION_TABLES) {
    it(`${table}: no table or index partition key is shared by a whole project's traffic`, () => {
      for (const key of partitionKeys(table)) expect(PROJECT_WIDE.has(key.attribute), `${key.where} is keyed by ${key.attribute}`).toBe(false);
    });
  }

  it('the event ledger has no index at all: its items are keys only, one write unit each', () => {
    expect(tableProps('events').GlobalSecondaryIndexes ?? []).toEqual([]);
    expect(TABLES.events.indexes).toEqual([]);
  });

  it('would fail on an index keyed by project_id (the check is not vacuous)', () => {
    const keysOf = (p: TableProps) =>
      (p.GlobalSecondaryIndexes ?? []).map((g) => g.KeySchema.find((k) => k.KeyType === 'HASH')!.AttributeName).filter((a) => PROJECT_WIDE.has(a));
    expect(
      keysOf({ KeySchema: [], GlobalSecondaryIndexes: [{ IndexName: 'by_project_time', KeySchema: [{ AttributeName: 'project_id', KeyType: 'HASH' }] }] }),
    ).toEqual(['project_id']);
  });
});

/** Tests that read files with DuckDB themselves, as an analyst would: one in-memory instance, a connection per query. */
import { DuckDBInstance } from '@duckdb/node-api';

export interface TestDuckDb {
  /** Runs `setup` (any statements, e.g. views.sql), then `sql`, on a fresh connection; the rows as JSON values. */
  rows(sql: string, setup?: string): Promise<Array<Record<string, unknown>>>;
  close(): void;
}

export async function testDuckDb(): Promise<TestDuckDb> {
  const instance = await DuckDBInstance.create(':memory:');
  return {
    async rows(sql, setup) {
      const connection = await instance.connect();
      try {
        if (setup) await connection.run(setup);
        return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Array<Record<string, unknown>>;
      } finally {
        connection.closeSync();
      }
    },
    close: () => instance.closeSync(),
  };
}

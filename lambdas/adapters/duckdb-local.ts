/**
 * The DuckDB of the local adapters, Athena's stand-in (docs/architecture.md). Each use gets a session
 * of its own with the Trino-compat macros and the given views over the raw NDJSON files (temp views and
 * macros are per connection, so concurrent uses do not interfere), and closes it afterwards.
 *
 * Two implementations: InProcessDuckDb runs DuckDB in this process (tests of one adapter, the results
 * job); the local server runs its requests' queries in a process of their own at a lower priority
 * (lambdas/local/duckdb-process.ts), as Athena runs apart from the Lambdas, so a heavy insight never
 * takes the CPU from ingestion. Both go through the process's DuckDB gate (duckdb-gate.ts).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { gatedConnection } from './duckdb-gate';
import { TRINO_COMPAT_MACROS, type DuckType } from './duckdb-results-query';
import { localViewSql } from './duckdb-stream-views';
import { writeRowsFile } from './duckdb-rows-file.mjs';
import { localDuckDbConfig } from './duckdb-threads';

/**
 * A temp view of a session: over landing NDJSON files (a stream's columns, project_id among them, and
 * arrival_hour from the path), over curated Parquet files (the columns, then project_id and dt from
 * the path), or a query over other views (duckdb-stream-views.ts builds the three of a stream).
 */
export type LocalView =
  | { name: string; landing: string[]; columns: Record<string, DuckType> }
  | { name: string; parquet: string[]; columns: Record<string, DuckType> }
  | { name: string; sql: string };

export type DuckDbRow = Record<string, unknown>;

/** What a use may do: read a query's rows, or write them as a result file (duckdb-rows-file.mjs). */
export interface DuckDbSession {
  rows(sql: string): Promise<DuckDbRow[]>;
  /** Runs `sql` and writes its rows to `file` as a JSON array; resolves to the number of rows. Rejects, writing nothing, when a figure is not finite. */
  writeRows(sql: string, file: string): Promise<number>;
}

export interface LocalDuckDb {
  use<T>(views: LocalView[], work: (session: DuckDbSession) => Promise<T>): Promise<T>;
  /** Stops the engine; a later use starts it again. */
  close(): Promise<void>;
}

/** The statements that open a session: the macros, then the views. */
export function sessionStatements(views: LocalView[]): string[] {
  return [...TRINO_COMPAT_MACROS, ...views.map(localViewSql)];
}

/** DuckDB in this process. The instance starts at the first use and lives until close(). */
export class InProcessDuckDb implements LocalDuckDb {
  private instance: Promise<DuckDBInstance> | undefined;

  /** `config`: DuckDB settings, e.g. `{ threads: '2' }`; threads default to LOCAL_DUCKDB_THREADS (duckdb-threads.ts). */
  constructor(private readonly config: Record<string, string> = {}) {
    this.config = { ...localDuckDbConfig(), ...config };
  }

  async use<T>(views: LocalView[], work: (session: DuckDbSession) => Promise<T>): Promise<T> {
    this.instance ??= DuckDBInstance.create(':memory:', this.config);
    const connection = await gatedConnection(await this.instance);
    try {
      for (const statement of sessionStatements(views)) await connection.run(statement);
      return await work({
        rows: (sql) => readConnectionRows(connection, sql),
        writeRows: async (sql, file) => writeRowsFile(await readConnectionRows(connection, sql), file),
      });
    } finally {
      connection.closeSync();
    }
  }

  async close(): Promise<void> {
    const instance = this.instance;
    this.instance = undefined;
    if (instance) (await instance).closeSync();
  }
}

async function readConnectionRows(connection: DuckDBConnection, sql: string): Promise<DuckDbRow[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS() as DuckDbRow[];
}

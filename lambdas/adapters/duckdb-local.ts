/**
 * The in-process DuckDB of a local adapter, Athena's stand-in (docs/architecture.md): each use gets a
 * connection of its own (temp views and macros are per connection, so concurrent uses on one instance
 * do not interfere) with the Trino-compat macros and the given views over the raw NDJSON files, and
 * closes it afterwards. The instance starts at the first use and lives until close(). Its calls go
 * through the process's DuckDB gate (duckdb-gate.ts).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { gatedConnection } from './duckdb-gate';
import { TRINO_COMPAT_MACROS, viewSql, type DuckType } from './duckdb-results-query';
import { localDuckDbConfig } from './duckdb-threads';

/** A temp view over raw files (viewSql): its name, the files, their columns. */
export interface LocalView {
  name: string;
  files: string[];
  columns: Record<string, DuckType>;
}

export class LocalDuckDb {
  private instance: Promise<DuckDBInstance> | undefined;

  /** `config`: DuckDB settings, e.g. `{ threads: '2' }`; threads default to LOCAL_DUCKDB_THREADS (duckdb-threads.ts). */
  constructor(private readonly config: Record<string, string> = {}) {
    this.config = { ...localDuckDbConfig(), ...config };
  }

  async use<T>(views: LocalView[], work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    this.instance ??= DuckDBInstance.create(':memory:', this.config);
    const connection = await gatedConnection(await this.instance);
    try {
      for (const macro of TRINO_COMPAT_MACROS) await connection.run(macro);
      for (const view of views) await connection.run(viewSql(view.name, view.files, view.columns));
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  }

  /** Closes the instance; a later use starts a new one. */
  async close(): Promise<void> {
    const instance = this.instance;
    this.instance = undefined;
    if (instance) (await instance).closeSync();
  }
}

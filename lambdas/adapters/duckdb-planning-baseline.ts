/**
 * The planning baseline locally: DuckDB in-process over the NDJSON files, as the results query reads
 * them (duckdb-results-query.ts): only the look-back's event days, every identity day of the project.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import type { BaselineRequest, BaselineSums, PlanningBaselines } from '../ports';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, LOCAL_TABLES, TRINO_COMPAT_MACROS, partitionFiles, readRows, viewSql } from './duckdb-results-query';
import { planningBaselineParams, renderPlanningBaseline, toBaselineSums } from './sql/planning-baseline';

export class DuckDbPlanningBaselines implements PlanningBaselines {
  private instance: Promise<DuckDBInstance> | undefined;

  constructor(private readonly dataDir: string) {}

  async measure(request: BaselineRequest): Promise<BaselineSums> {
    const params = planningBaselineParams(request);
    const [eventFiles, identityFiles] = await Promise.all([
      partitionFiles(join(this.dataDir, 'events'), request.projectId, params.from_dt as string, params.to_dt as string),
      partitionFiles(join(this.dataDir, 'identities'), request.projectId),
    ]);
    this.instance ??= DuckDBInstance.create(':memory:');
    const connection = await (await this.instance).connect();
    try {
      for (const macro of TRINO_COMPAT_MACROS) await connection.run(macro);
      await connection.run(viewSql(LOCAL_TABLES.events, eventFiles, EVENT_COLUMNS));
      await connection.run(viewSql(LOCAL_TABLES.identities, identityFiles, IDENTITY_COLUMNS));
      return toBaselineSums(await readRows(connection, renderPlanningBaseline(request, LOCAL_TABLES)));
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

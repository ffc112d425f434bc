/**
 * The planning baseline locally: DuckDB in-process over the NDJSON files, as the results query reads
 * them (duckdb-results-query.ts): only the event days of the look-back and of CUPED's window before it,
 * every identity day of the project.
 */
import { join } from 'node:path';
import type { BaselineRequest, BaselineSums, PlanningBaselines } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, LOCAL_TABLES, partitionFiles } from './duckdb-results-query';
import { planningBaselineParams, renderPlanningBaseline, toBaselineSums } from './sql/planning-baseline';

export class DuckDbPlanningBaselines implements PlanningBaselines {
  constructor(
    private readonly dataDir: string,
    private readonly duckdb: LocalDuckDb = new InProcessDuckDb(),
  ) {}

  async measure(request: BaselineRequest): Promise<BaselineSums> {
    const params = planningBaselineParams(request);
    const [eventFiles, identityFiles] = await Promise.all([
      partitionFiles(join(this.dataDir, 'events'), request.projectId, params.covariate_from_dt as string, params.to_dt as string),
      partitionFiles(join(this.dataDir, 'identities'), request.projectId),
    ]);
    const views = [
      { name: LOCAL_TABLES.events, files: eventFiles, columns: EVENT_COLUMNS },
      { name: LOCAL_TABLES.identities, files: identityFiles, columns: IDENTITY_COLUMNS },
    ];
    return this.duckdb.use(views, async (session) => toBaselineSums(await session.rows(renderPlanningBaseline(request, LOCAL_TABLES))));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}

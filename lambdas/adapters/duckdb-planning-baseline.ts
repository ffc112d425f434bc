/**
 * The planning baseline locally: DuckDB over the events and identities views (duckdb-stream-views.ts),
 * as the results query reads them: only the event days of the look-back and of CUPED's window before
 * it, every identity day of the project.
 */
import type { BaselineRequest, BaselineSums, PlanningBaselines } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { LOCAL_TABLES } from './duckdb-results-query';
import { streamViews } from './duckdb-stream-views';
import { planningBaselineParams, renderPlanningBaseline, toBaselineSums } from './sql/planning-baseline';

export class DuckDbPlanningBaselines implements PlanningBaselines {
  constructor(
    private readonly dataDir: string,
    private readonly duckdb: LocalDuckDb = new InProcessDuckDb(),
  ) {}

  async measure(request: BaselineRequest): Promise<BaselineSums> {
    const params = planningBaselineParams(request);
    const views = (
      await Promise.all([
        streamViews(this.dataDir, 'events', { projectId: request.projectId, fromDt: params.covariate_from_dt as string, toDt: params.to_dt as string }),
        streamViews(this.dataDir, 'identities', { projectId: request.projectId }),
      ])
    ).flat();
    return this.duckdb.use(views, async (session) => toBaselineSums(await session.rows(renderPlanningBaseline(request, LOCAL_TABLES))));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}

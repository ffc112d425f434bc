/**
 * The planning baseline on AWS: Athena over the raw events table, only the partitions of the
 * look-back's days and of CUPED's window before it (dt BETWEEN), and the identities table from the day before the project's creation,
 * as the results query reads them. Like the listings, an event counts once Firehose has delivered it.
 */
import type { BaselineRequest, BaselineSums, PlanningBaselines } from '../ports';
import type { AthenaResultsQuery } from './athena-results-query';
import { renderPlanningBaseline, toBaselineSums } from './sql/planning-baseline';

export class AthenaPlanningBaselines implements PlanningBaselines {
  constructor(
    private readonly athena: Pick<AthenaResultsQuery, 'run' | 'eventsTable' | 'identitiesTable'>,
    private readonly options: { maxWaitMs: number },
  ) {}

  /** The exact text measure() sends. */
  sql(request: BaselineRequest): string {
    return renderPlanningBaseline(request, { events: this.athena.eventsTable, identities: this.athena.identitiesTable });
  }

  async measure(request: BaselineRequest): Promise<BaselineSums> {
    const { rows } = await this.athena.run(this.sql(request), Date.now() + this.options.maxWaitMs);
    return toBaselineSums(rows);
  }
}

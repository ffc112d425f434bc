import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { seriesPoints, type SeriesCountsPoint } from '../domain/results-series';
import type { ExperimentResults, ResultsStore } from '../ports';

/**
 * The stored form: the results without the series' statistics. Each point keeps only its date (a day,
 * or an hour's start: it also says the point's interval) and
 * the cumulative [enrolled, converted] of every variant (configuration order); get() recomputes the
 * statistics (domain/results-series.ts), which are a pure function of the counts. With 26 variants
 * and MAX_SERIES_DAYS points a full series of statistics would be several MB, far over DynamoDB's
 * 400 KB item limit; the counts take about 150 KB.
 */
interface StoredResults extends Omit<ExperimentResults, 'series'> {
  series_counts?: Array<[date: string, counts: Array<[enrolled: number, converted: number]>]>;
}

export class DynamoResultsStore implements ResultsStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(projectId: string, results: ExperimentResults): Promise<void> {
    const { series, ...rest } = results;
    const stored: StoredResults = {
      ...rest,
      series_counts: series.map((p) => [p.date, p.variants.map((v) => [v.enrolled, v.converted])]),
    };
    // One string attribute: nulls and floats round-trip exactly, and the item is read whole anyway.
    await this.ddb.send(
      new PutCommand({ TableName: this.table, Item: { project_id: projectId, experiment_id: results.experiment_id, results: JSON.stringify(stored) } }),
    );
  }

  async get(projectId: string, experimentId: string): Promise<ExperimentResults | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, experiment_id: experimentId } }));
    if (!out.Item) return undefined;
    const { series_counts: seriesCounts = [], ...rest } = JSON.parse(out.Item.results as string) as StoredResults;
    // Results stored before the series existed have none until their next computation.
    const variants = rest.variants.map((v) => v.variant);
    const points: SeriesCountsPoint[] = seriesCounts.map(([date, counts]) => ({
      date,
      counts: counts.map(([enrolled, converted], i) => ({ variant: variants[i]!, enrolled, converted })),
    }));
    return { ...rest, series: seriesPoints(rest.window, points) };
  }

  async forget(projectId: string, experimentId: string): Promise<boolean> {
    const out = await this.ddb.send(
      new DeleteCommand({ TableName: this.table, Key: { project_id: projectId, experiment_id: experimentId }, ReturnValues: 'ALL_OLD' }),
    );
    return out.Attributes !== undefined;
  }
}

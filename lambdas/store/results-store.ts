import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ExperimentResults, ResultsStore } from '../ports';

export class DynamoResultsStore implements ResultsStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(projectId: string, results: ExperimentResults): Promise<void> {
    // One string attribute: nulls and floats round-trip exactly, and the item is read whole anyway.
    await this.ddb.send(
      new PutCommand({ TableName: this.table, Item: { project_id: projectId, experiment_id: results.experiment_id, results: JSON.stringify(results) } }),
    );
  }

  async get(projectId: string, experimentId: string): Promise<ExperimentResults | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, experiment_id: experimentId } }));
    return out.Item ? (JSON.parse(out.Item.results as string) as ExperimentResults) : undefined;
  }
}

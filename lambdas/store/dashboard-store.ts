/**
 * The dashboards (table dashboards), per project under a limit (slotted-records.ts). The tiles and
 * the range override are JSON text.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Dashboard, DashboardStore } from '../ports';
import { DynamoSlottedRecords, jsonFieldsCodec } from './slotted-records';

export class DynamoDashboardStore extends DynamoSlottedRecords<Dashboard> implements DashboardStore {
  constructor(ddb: DynamoDBDocumentClient, table: string) {
    super(ddb, table, jsonFieldsCodec<Dashboard>(['tiles', 'range_override']), 'dashboards');
  }
}

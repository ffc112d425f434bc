/**
 * The saved insights (table saved_insights), per project under a limit (slotted-records.ts). The
 * definition is JSON text: client text of any shape round-trips exactly.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SavedInsight, SavedInsightStore } from '../ports';
import { DynamoSlottedRecords, jsonFieldsCodec } from './slotted-records';

export class DynamoSavedInsightStore extends DynamoSlottedRecords<SavedInsight> implements SavedInsightStore {
  constructor(ddb: DynamoDBDocumentClient, table: string) {
    super(ddb, table, jsonFieldsCodec<SavedInsight>(['definition']), 'saved insights');
  }
}

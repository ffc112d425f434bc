/**
 * The deletions of people (table deletions), kept as requests of a project (store/project-requests.ts:
 * newest first by one Query, found by ID with one read, the unfinished by a Scan).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoProjectRequests } from './project-requests';
import type { Deletion, DeletionPage, DeletionStore } from '../ports';

export { requestedAtOf } from './project-requests';

export class DynamoDeletionStore implements DeletionStore {
  private readonly requests: DynamoProjectRequests<Deletion>;

  constructor(ddb: DynamoDBDocumentClient, table: string) {
    this.requests = new DynamoProjectRequests(ddb, table);
  }

  create(deletion: Deletion): Promise<void> {
    return this.requests.put(deletion);
  }

  get(projectId: string, id: string): Promise<Deletion | undefined> {
    return this.requests.get(projectId, id);
  }

  async list(projectId: string, limit: number, cursor?: string): Promise<DeletionPage> {
    const { items, next } = await this.requests.list(projectId, limit, cursor);
    return { deletions: items, ...(next ? { next } : {}) };
  }

  /** Not done yet, or done and still sweeping late deliveries (sweep_until after now). */
  unfinished(nowMs: number): Promise<Deletion[]> {
    return this.requests.unfinished({ condition: 'sweep_until > :now', values: { ':now': new Date(nowMs).toISOString() } });
  }

  save(deletion: Deletion): Promise<void> {
    return this.requests.put(deletion);
  }
}

/**
 * The exports of people (table exports), kept as requests of a project (store/project-requests.ts:
 * newest first by one Query, found by ID with one read, the unfinished by a Scan).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoProjectRequests } from './project-requests';
import type { ExportPage, ExportStore, PersonExport } from '../ports';

export class DynamoExportStore implements ExportStore {
  private readonly requests: DynamoProjectRequests<PersonExport>;

  constructor(ddb: DynamoDBDocumentClient, table: string) {
    this.requests = new DynamoProjectRequests(ddb, table);
  }

  create(request: PersonExport): Promise<void> {
    return this.requests.put(request);
  }

  get(projectId: string, id: string): Promise<PersonExport | undefined> {
    return this.requests.get(projectId, id);
  }

  async list(projectId: string, limit: number, cursor?: string): Promise<ExportPage> {
    const { items, next } = await this.requests.list(projectId, limit, cursor);
    return { exports: items, ...(next ? { next } : {}) };
  }

  unfinished(): Promise<PersonExport[]> {
    return this.requests.unfinished();
  }

  save(request: PersonExport): Promise<void> {
    return this.requests.put(request);
  }

  all(projectId: string): Promise<PersonExport[]> {
    return this.requests.all(projectId);
  }

  forget(request: PersonExport): Promise<void> {
    return this.requests.remove(request);
  }
}

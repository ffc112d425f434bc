import type { ApiKeyRecord } from '../domain/api-key';

/** Project keys, looked up by the hash of the key (the key itself is never stored). */
export interface ApiKeyStore {
  create(key: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  listByProject(projectId: string): Promise<ApiKeyRecord[]>;
  /** Sets the key's label (undefined removes it); returns the updated record, or undefined when the project has no such key. */
  relabel(projectId: string, keyId: string, label: string | undefined): Promise<ApiKeyRecord | undefined>;
  /** Deletes the key; returns the deleted record, or undefined when the project has no such key. */
  revoke(projectId: string, keyId: string): Promise<ApiKeyRecord | undefined>;
}

/** Starts the real local stack (dynalite, local Firehose endpoint, HTTP server) for a test file. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '../../lambdas/domain/event';
import type { IdentityRecord } from '../../lambdas/domain/identity';
import { startLocalServer, type LocalServer, type LocalServerOptions } from '../../lambdas/local/server';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestStack extends LocalServer {
  dataDir: string;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  createProject(name?: string): Promise<string>;
  createKey(projectId: string, options?: Record<string, unknown>): Promise<string>;
  post(
    path: string,
    key: string,
    body: unknown,
    init?: { headers?: Record<string, string>; gzip?: boolean; raw?: Buffer | string },
  ): Promise<{ status: number; text: string; json: any; headers: Headers }>;
  /** Every line of every raw event file, in file order. */
  rawEvents(projectId?: string): StoredEvent[];
  /** Every line of the identity stream files. */
  identityRecords(projectId?: string): IdentityRecord[];
  stop(): Promise<void>;
}

/**
 * The handlers' time budget in tests: a minute instead of the 10 s of AWS. The tests check what a
 * request does, not how fast a machine does it; a batch of a hundred events or more makes hundreds of
 * DynamoDB calls, and with two other processes keeping the two cores busy one took over 20 s.
 */
const TEST_HANDLER_TIMEOUT_MS = 60_000;

export async function startTestStack(options: Partial<LocalServerOptions> = {}): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tally-test-'));
  const server = await startLocalServer({
    port: 0,
    dataDir,
    inMemoryDynamo: true,
    adminToken: ADMIN_TOKEN,
    handlerTimeoutMs: TEST_HANDLER_TIMEOUT_MS,
    // A large batch waits for the one before it: as long as a handler may take here.
    largeBatchWaitMs: TEST_HANDLER_TIMEOUT_MS,
    ...options,
  });

  const admin: TestStack['admin'] = async (method, path, body) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  return {
    ...server,
    dataDir,
    admin,
    async createProject(name = 'test project') {
      const res = await admin('POST', '/admin/v1/projects', { name });
      if (res.status !== 201) throw new Error(`createProject: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    },
    async createKey(projectId, keyOptions = {}) {
      const res = await admin('POST', `/admin/v1/projects/${projectId}/keys`, keyOptions);
      if (res.status !== 201) throw new Error(`createKey: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.key as string;
    },
    async post(path, key, body, init = {}) {
      let payload: Buffer | string = init.raw ?? JSON.stringify(body);
      const headers: Record<string, string> = { 'Content-Type': 'application/json', ...init.headers };
      if (key) headers.Authorization = `Bearer ${key}`;
      if (init.gzip) {
        payload = gzipSync(payload);
        headers['Content-Encoding'] = 'gzip';
      }
      const res = await fetch(server.url + path, { method: 'POST', headers, body: payload });
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, text, json, headers: res.headers };
    },
    rawEvents(projectId) {
      return readRawEvents(server.eventsDir, projectId);
    },
    identityRecords(projectId) {
      return readRawEvents(server.identitiesDir, projectId) as unknown as IdentityRecord[];
    },
    async stop() {
      await server.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Key options no test reaches the limit of. */
export const UNTHROTTLED_KEY = { plan: 'enterprise', rate_limit_per_minute: 100_000 } as const;

export interface TestProject {
  stack: TestStack;
  project: string;
  /** An UNTHROTTLED_KEY of the project. */
  key: string;
}

/** The end-to-end set-up most test files share: the local stack, a project and an unthrottled key. */
export async function startTestProject(name: string, options: Partial<LocalServerOptions> = {}): Promise<TestProject> {
  const stack = await startTestStack(options);
  const project = await stack.createProject(name);
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  return { stack, project, key };
}

export function readRawEvents(eventsDir: string, projectId?: string): StoredEvent[] {
  const out: StoredEvent[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else for (const line of readFileSync(path, 'utf8').split('\n')) if (line) out.push(JSON.parse(line));
    }
  };
  // The landing hours hold every project's records: a project's are those naming it.
  walk(eventsDir);
  return projectId === undefined ? out : out.filter((e) => e.project_id === projectId);
}

/**
 * A data directory from before the landing layout (docs/decisions/columnar-events.md, "Local data from
 * before"): test/fixtures/data-dir-before-landing.tar.gz was made by `npm start` of the main branch
 * before the change (a project, a key, events of five days and a login with an email, through the
 * API; its raw files under events/project_id=…/dt=…/received=…/ and identities/project_id=…/dt=…/).
 * Started on it, the server moves those files into landing hours and shows every event and the person
 * as before; compaction then curates them without changing an answer.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curatedFiles } from '../../lambdas/adapters/duckdb-stream-views';
import { readRawEvents, startTestStack, type TestStack } from '../helpers/local';
import type { StoredEvent } from '../../lambdas/domain/event';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-before-landing-'));
let stack: TestStack;
let project: string;
let stored: StoredEvent[];

beforeAll(async () => {
  execFileSync('tar', ['-xzf', join(import.meta.dirname, '..', 'fixtures', 'data-dir-before-landing.tar.gz'), '-C', dataDir]);
  expect(readdirSync(join(dataDir, 'events'))).toHaveLength(1);
  // What main stored: one line per event (the API deduplicated the repeats it was sent), by day.
  stored = readRawEvents(join(dataDir, 'events'));
  // Its DynamoDB tables too (dynalite's files under dynamodb/), as npm start keeps them.
  stack = await startTestStack({ dataDir, inMemoryDynamo: false });
  project = (await stack.admin('GET', '/admin/v1/projects')).body.projects[0].id as string;
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const listed = async () => {
  const res = await stack.admin('GET', `/admin/v1/projects/${project}/events?limit=1000`);
  expect(res.status).toBe(200);
  return (res.body.events as Array<{ name: string; user_id: string }>).map((e) => `${e.name} ${e.user_id}`).sort();
};

describe('a data directory written before the landing layout', () => {
  it('has its raw files moved into landing hours at start, and every event and the person shown as before', async () => {
    expect(existsSync(join(dataDir, 'events'))).toBe(false);
    expect(existsSync(join(dataDir, 'identities'))).toBe(false);
    expect(readdirSync(join(dataDir, 'landing', 'events'))).toEqual(['arrival_hour=2026-11-28-15']);
    expect(readdirSync(join(dataDir, 'landing', 'identities')).length).toBe(1);
    expect(stored.length).toBeGreaterThan(10);
    expect(await listed()).toEqual(stored.map((e) => `${e.name} ${e.user_id}`).sort());
    const users = await stack.admin('GET', `/admin/v1/projects/${project}/users?search=one@example.com`);
    expect(users.status).toBe(200);
    expect(users.body.users.map((u: { email?: string }) => u.email)).toEqual(['one@example.com']);
  });

  it('compacts the moved hours without changing what is listed', async () => {
    const before = await listed();
    await stack.compaction.runNow(Date.parse('2026-11-28T17:00:00.000Z'));
    // One curated file per event day.
    expect((await curatedFiles(dataDir, 'events', { projectId: project })).length).toBe(new Set(stored.map((e) => e.timestamp.slice(0, 10))).size);
    expect(await listed()).toEqual(before);
  });
});

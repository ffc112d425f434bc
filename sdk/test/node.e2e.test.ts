/**
 * The published package (dist, through its exports map) in Node against the real local server:
 * the scenarios without a browser.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TallyClient, type TallyOptions } from '@tally/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { variantFor } from '../../lambdas/domain/bucketing';
import { startTestStack, type TestStack } from '../../test/helpers/local';
import { fakeLogger } from './fake-fetch';
import { until } from '../../test/helpers/until';

let stack: TestStack;
let project: string;
let key: string;
const clients: TallyClient[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  project = await stack.createProject('sdk node');
  key = await stack.createKey(project, { plan: 'enterprise', rate_limit_per_minute: 100_000 });
});
afterAll(() => stack.stop());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.shutdown()));
  vi.unstubAllGlobals();
});

function client(options: Partial<TallyOptions> = {}) {
  const c = new TallyClient({ apiKey: key, baseURL: stack.url, flushIntervalMs: 60_000, logger: fakeLogger(), ...options });
  clients.push(c);
  return c;
}

async function runningExperiment(name: string, variants: string[]) {
  const base = `/admin/v1/projects/${project}/experiments`;
  const created = await stack.admin('POST', base, { name, goal_event: 'purchase', variants });
  expect(created.status).toBe(201);
  expect((await stack.admin('POST', `${base}/${created.body.id}/start`)).status).toBe(200);
  return created.body as { id: string; name: string; variants: string[] };
}

describe('events', () => {
  it('are stored with every field, gzipped bodies included', async () => {
    const c = client({ appVersion: '3.2.1', environment: 'test', bundleId: 'com.example.node' });
    c.track('sdk node small', { plan: 'pro', n: 1 });
    c.track('sdk node large', { text: 'abcdefgh '.repeat(300) });
    await c.flush();
    const stored = stack.rawEvents(project).filter((e) => e.name.startsWith('sdk node'));
    expect(stored).toHaveLength(2);
    const small = stored.find((e) => e.name === 'sdk node small')!;
    expect(small).toMatchObject({
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: c.anonymousId,
      sent_user_id: c.anonymousId,
      properties: { plan: 'pro', n: 1 },
      platform: 'node',
      app_version: '3.2.1',
      os_version: process.platform,
      environment: 'test',
      locale: Intl.DateTimeFormat().resolvedOptions().locale,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      sdk: 'tally-js',
      sdk_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      source: 'v1',
    });
    expect(Date.now() - Date.parse(small.timestamp)).toBeLessThan(60_000);
    expect(stored.find((e) => e.name === 'sdk node large')!.properties.text).toHaveLength(2700);
  });

  it('identify, then events are stored under the canonical (first-seen) ID', async () => {
    const c = client();
    c.track('sdk before login');
    await c.flush();
    c.identify('sdk-user-1', { email: 'ada@example.com', name: 'Ada' });
    c.track('sdk after login');
    await c.flush();
    const after = stack.rawEvents(project).find((e) => e.name === 'sdk after login')!;
    expect(after).toMatchObject({ user_id: c.anonymousId, sent_user_id: 'sdk-user-1' });
    const user = await stack.admin('GET', `/admin/v1/projects/${project}/users/sdk-user-1`);
    expect(user.body).toMatchObject({ user_id: c.anonymousId, email: 'ada@example.com', name: 'Ada' });
  });
});

describe('the CommonJS build', () => {
  it('works through require(), gzip included', async () => {
    const { TallyClient: Cjs } = createRequire(import.meta.url)('@tally/sdk') as typeof import('@tally/sdk');
    const c = new Cjs({ apiKey: key, baseURL: stack.url, experimentMode: 'local', localExperiments: [], logger: fakeLogger() });
    clients.push(c);
    c.track('sdk cjs', { text: 'zyxwvuts '.repeat(200) });
    await c.flush();
    expect(stack.rawEvents(project).filter((e) => e.name === 'sdk cjs')).toHaveLength(1);
  });
});

describe('experiments', () => {
  it('server mode, local mode with configs and local mode with inline configs all give the server variant', async () => {
    const exp = await runningExperiment('SDK Node Checkout', ['a', 'b', 'c', 'd']);
    for (let i = 0; i < 4; i++) {
      const server = client();
      await server.ready();
      const answer = await fetch(`${stack.url}/v1/experiments?anonymous_id=${server.anonymousId}`, { headers: { Authorization: `Bearer ${key}` } });
      const expected = ((await answer.json()) as any).assigned_variants[exp.name];
      expect(server.getVariant(exp.name, 'fallback')).toBe(expected);
      expect(expected).toBe(variantFor(exp.id, server.anonymousId, exp.variants));

      const local = client({ experimentMode: 'local' });
      await local.ready();
      const inline = client({ experimentMode: 'local', localExperiments: [exp] });
      for (const c of [local, inline]) {
        const onDevice = c.getVariant(exp.name, 'fallback');
        const fromServer = await fetch(`${stack.url}/v1/experiments?anonymous_id=${c.anonymousId}`, { headers: { Authorization: `Bearer ${key}` } });
        expect(onDevice).toBe(((await fromServer.json()) as any).assigned_variants[exp.name]);
      }
    }
  });

  it('a weighted experiment (a list with repeated names): the server variant in local mode, one exposure, the super property unchanged', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const created = await stack.admin('POST', base, {
      name: 'SDK Node Weighted',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      weights: [80, 20],
    });
    expect((await stack.admin('POST', `${base}/${created.body.id}/start`)).status).toBe(200);
    const name = 'SDK Node Weighted';
    // What local mode fetches: the expanded list, control four times (docs/identity-and-experiments.md#variant-weights).
    const expanded = ['control', 'control', 'control', 'control', 'treatment'];
    const configs = await fetch(`${stack.url}/v1/experiments/configs`, { headers: { Authorization: `Bearer ${key}` } });
    expect(((await configs.json()) as any).experiments).toContainEqual({ id: created.body.id, name, variants: expanded });
    for (let i = 0; i < 20; i++) {
      const local = client({ experimentMode: 'local' });
      await local.ready();
      const variant = local.getVariant(name, 'fallback');
      expect(variant).toBe(variantFor(created.body.id, local.anonymousId, expanded));
      expect(local.getVariant(name, 'fallback')).toBe(variant);
      const fromServer = await fetch(`${stack.url}/v1/experiments?anonymous_id=${local.anonymousId}`, { headers: { Authorization: `Bearer ${key}` } });
      expect(variant).toBe(((await fromServer.json()) as any).assigned_variants[name]);
      local.track('sdk weighted view');
      await local.flush();
      const mine = stack.rawEvents(project).filter((e) => e.sent_user_id === local.anonymousId);
      // Once per user, experiment and variant, however often the variant repeats in the list.
      expect(mine.filter((e) => e.name === '$experiment_exposure').map((e) => e.properties.$variant)).toEqual([variant]);
      expect(mine.find((e) => e.name === 'sdk weighted view')!.properties.$experiment_sdk_node_weighted).toBe(variant);
    }
  });

  it('after identify the server keeps the anonymous variant', async () => {
    const exp = await runningExperiment('SDK Node Login', ['x', 'y', 'z']);
    const c = client();
    await c.ready();
    const before = c.getVariant(exp.name, 'fallback');
    c.identify(`sdk-login-${c.anonymousId}`);
    await c.ready();
    expect(c.getVariant(exp.name, 'fallback')).toBe(before);
    await c.flush();
    const exposures = stack.rawEvents(project).filter((e) => e.name === '$experiment_exposure' && e.properties.$experiment_name === exp.name);
    expect(exposures).toHaveLength(2); // once for the anonymous ID, once for the user ID
    expect(exposures.every((e) => e.user_id === c.anonymousId)).toBe(true);
  });
});

describe('delivery', () => {
  it('a lost answer and a server restart mid-flight lose no event and duplicate none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tally-sdk-restart-'));
    let own = await startTestStack({ dataDir, inMemoryDynamo: false });
    try {
      const port = Number(new URL(own.url).port);
      const projectId = await own.createProject('restart');
      const k = await own.createKey(projectId);
      // The first POST is stored, but its answer "never arrives": the SDK must retry and the server dedupe.
      const realFetch = globalThis.fetch;
      let lose = 1;
      const posted: string[] = [];
      vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
        if (String(url).endsWith('/v1/events'))
          posted.push(...JSON.parse(new TextDecoder().decode(init!.body as Uint8Array)).events.map((e: { name: string }) => e.name));
        const res = await realFetch(url, init);
        if (String(url).endsWith('/v1/events') && lose-- > 0) throw new TypeError('connection reset');
        return res;
      });
      const c = client({ apiKey: k, baseURL: own.url, experimentMode: 'local', localExperiments: [], maxBatchSize: 5 });
      for (let i = 0; i < 5; i++) c.track(`r${i}`);
      await c.flush(); // answer lost: scheduled for a retry
      for (let i = 5; i < 12; i++) c.track(`r${i}`); // a full batch starts a send…
      const stopping = own.stop(); // …while the server shuts down
      for (let i = 12; i < 20; i++) c.track(`r${i}`);
      await stopping;
      await c.flush(); // refused: nothing listens
      own = await startTestStack({ dataDir, inMemoryDynamo: false, port });
      await c.flush();
      const stored = await until(() => {
        const events = own.rawEvents(projectId);
        return events.length >= 20 ? events : undefined;
      });
      await c.flush();
      expect(posted.filter((n) => n === 'r0').length).toBeGreaterThanOrEqual(2); // it was sent again…
      const names = own.rawEvents(projectId).map((e) => e.name);
      expect(names.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`).sort()); // …and stored once
      expect(new Set(stored.map((e) => e.event_id)).size).toBe(20);
    } finally {
      await own.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('honours 429 Retry-After', async () => {
    const limited = await stack.createKey(project, { rate_limit_per_minute: 60 });
    const seen: Array<{ status: number; at: number }> = [];
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
      const res = await realFetch(url, init);
      if (String(url).endsWith('/v1/events')) seen.push({ status: res.status, at: Date.now() });
      return res;
    });
    const c = client({ apiKey: limited, experimentMode: 'local', localExperiments: [] });
    // Spend the key's burst (its per-minute limit) until it is refused, so the SDK's first post is too.
    let refused = false;
    for (let i = 0; i < 500 && !refused; i++) {
      refused = (await realFetch(`${stack.url}/v1/experiments/configs`, { headers: { Authorization: `Bearer ${limited}` } })).status === 429;
    }
    expect(refused).toBe(true);
    c.track('sdk rate limited');
    await c.flush();
    await until(() => stack.rawEvents(project).find((e) => e.name === 'sdk rate limited'));
    // The event is on disk before its 204 reaches the SDK's fetch: wait for the answer too.
    await until(() => (seen.length >= 2 ? true : undefined));
    expect(seen.map((s) => s.status)).toEqual([429, 204]);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
  });
});

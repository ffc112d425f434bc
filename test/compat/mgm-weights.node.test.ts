/**
 * Variant weights need no client change (issue 23), shown in Node for the MGM JavaScript SDK.
 *
 * The published 0.5.1 (the version npm has) has no experiments API, so this reproduces what the
 * SDK's repository at 0.10.0 does (Mostly-Good-Metrics/mostly-good-metrics-js, src/client.ts and
 * src/sha256.ts), independently of Tally's own bucketing module:
 *  - server mode: GET /v1/experiments?user_id=<id> with Authorization and Content-Type:
 *    application/json, then `assigned_variants[<experiment name>]`;
 *  - local mode: GET /v1/experiments/configs once, then per ID resolveLocalVariant: the first 8
 *    bytes of SHA-256 of "<experiment uuid>:<id>" as a big-endian unsigned integer, and
 *    `config.variants[Number(bucket % BigInt(config.variants.length))]`, on the list as received
 *    (0.10.0 neither deduplicates nor reorders it). SHA-256 here is node:crypto's.
 * Over IDs of a fixed seed, local mode assigns both weighted experiments within sampling error of
 * their weights, and server mode gives every one of the first 10,000 IDs the variant the device does.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapLimit } from '../../lambdas/domain/concurrency';
import { startTestProject, type TestStack } from '../helpers/local';
import { seededIds, standardErrorsOff, tally, WEIGHTED_EXPERIMENTS } from '../helpers/weighted-ids';

/** IDs bucketed on the device (local mode), and how many of the first of them also ask the server. */
const LOCAL_IDS = 20_000;
const SERVER_IDS = 10_000;

let stack: TestStack;
let project: string;
let key: string;
const ids = seededIds(LOCAL_IDS);

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('mgm weights in node'));
  for (const experiment of WEIGHTED_EXPERIMENTS) {
    const created = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, { ...experiment, goal_event: 'purchase' });
    expect(created.status).toBe(201);
    expect((await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${created.body.id}/start`)).status).toBe(200);
  }
});
afterAll(() => stack.stop());

/** 0.10.0's request headers for both experiment calls (src/client.ts). */
const headers = () => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });

/** 0.10.0's resolveLocalVariant over a config as received. */
function bucketOnDevice(config: { id: string; variants: string[] }, userId: string): string {
  const digest = createHash('sha256').update(`${config.id}:${userId}`, 'utf8').digest();
  let bucket = 0n;
  for (let i = 0; i < 8; i++) bucket = (bucket << 8n) | BigInt(digest[i]!);
  return config.variants[Number(bucket % BigInt(config.variants.length))]!;
}

describe('MGM JavaScript SDK (0.10.0 requests) against weighted experiments, in Node', () => {
  let configs: Array<{ id: string; name: string; variants: string[] }>;
  const device = new Map<string, string[]>();

  it(`local mode assigns ${LOCAL_IDS} IDs within sampling error of the weights`, async () => {
    const res = await fetch(`${stack.url}/v1/experiments/configs`, { headers: headers() });
    expect(res.status).toBe(200);
    configs = ((await res.json()) as { experiments: typeof configs }).experiments;
    for (const experiment of WEIGHTED_EXPERIMENTS) {
      const config = configs.find((c) => c.name === experiment.name)!;
      const assigned = ids.map((id) => bucketOnDevice(config, id));
      device.set(experiment.name, assigned);
      const counts = tally(assigned, experiment.variants);
      console.log(`${experiment.name} ${experiment.weights.join('/')} on device over ${LOCAL_IDS} IDs: ${counts.join('/')}`);
      for (const off of standardErrorsOff(counts, experiment.weights)) expect(off).toBeLessThan(4);
    }
  });

  it(`server mode gives each of the first ${SERVER_IDS} IDs the variant the device computes`, async () => {
    const server = await mapLimit(ids.slice(0, SERVER_IDS), 16, async (id) => {
      const res = await fetch(`${stack.url}/v1/experiments?user_id=${encodeURIComponent(id)}`, { headers: headers() });
      return ((await res.json()) as { assigned_variants: Record<string, string> }).assigned_variants;
    });
    for (const experiment of WEIGHTED_EXPERIMENTS) {
      const fromServer = server.map((assigned) => assigned[experiment.name]);
      const onDevice = device.get(experiment.name)!.slice(0, SERVER_IDS);
      const differing = fromServer.filter((v, i) => v !== onDevice[i]).length;
      expect(differing).toBe(0);
      for (const off of standardErrorsOff(tally(fromServer as string[], experiment.variants), experiment.weights)) expect(off).toBeLessThan(4);
    }
  }, 600_000);
});

/**
 * Hostile bodies cost little and harm no one else: a few KB of gzip that inflate to 5 MB of nested
 * brackets are refused before JSON.parse builds anything and without holding the event loop, so a
 * valid batch sent with 30 of them is answered as fast as one sent with 30 valid batches, and never
 * with a 5xx. The value, distinct-key and nesting limits hold on the scanned path (bodies over 16 KiB),
 * compressed or not, exactly at their documented values.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../lambdas/domain/limits';
import { PARSE_AT_ONCE_BYTES } from '../../lambdas/http/body';
import { startTestProject, type TestStack } from '../helpers/local';
import { prng } from '../../bin/prng';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('hostile bodies'));
});
afterAll(() => stack.stop());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('30 gzip bombs of nested brackets at once', () => {
  // 5,000,000 bytes of brackets (under the 5 MiB decompressed limit) in about 4.9 KB of gzip.
  const DEPTH = 2_500_000;
  const bomb = gzipSync('['.repeat(DEPTH) + ']'.repeat(DEPTH), { level: 9 });
  const STORM = 30;
  const ROUNDS = 3;

  /** One round: STORM requests of a kind at once, and a valid batch sent with them; what it took. */
  async function storm(kind: 'bombs' | 'valid batches', round: number) {
    const cpuBefore = process.cpuUsage();
    const peakBefore = process.resourceUsage().maxRSS;
    const requests = Array.from({ length: STORM }, (_, i) =>
      kind === 'bombs'
        ? stack.post('/v1/events', key, undefined, { raw: bomb, headers: { 'Content-Encoding': 'gzip' } })
        : stack.post('/v1/events', key, { events: [{ name: 'load', user_id: `load-${round}-${i}` }] }, { gzip: true }),
    );
    const started = performance.now();
    const valid = await stack.post('/v1/events', key, { events: [{ name: 'valid', user_id: `valid-${kind}-${round}` }] }, { gzip: true });
    const latencyMs = performance.now() - started;
    const answers = await Promise.all(requests);
    const cpu = process.cpuUsage(cpuBefore);
    return {
      valid,
      answers,
      latencyMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakGrowthMB: (process.resourceUsage().maxRSS - peakBefore) / 1024,
    };
  }

  it('are each refused with 400, and a valid batch sent with them is stored and answered as fast as one sent with 30 valid batches', async () => {
    expect(bomb.length).toBeLessThan(5_000);
    // Warm up the route (JIT, connections) so that the first round measures what the others do.
    for (let i = 0; i < 10; i++) await stack.post('/v1/events', key, { events: [{ name: 'warm-up', user_id: `w${i}` }] }, { gzip: true });

    const control: Awaited<ReturnType<typeof storm>>[] = [];
    const bombs: Awaited<ReturnType<typeof storm>>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      control.push(await storm('valid batches', round));
      const result = await storm('bombs', round);
      bombs.push(result);
      // Never a 5xx for anyone: the valid batch is stored, every bomb gets the documented 400.
      expect(result.valid.status).toBe(204);
      for (const answer of result.answers) {
        expect(answer.status).toBe(400);
        expect(answer.json).toEqual({ error: 'Invalid payload format', message: 'JSON is nested deeper than 32 levels' });
      }
      // A loose bound per round, so that code that parses the bombs fails after one round, not three.
      const roundRatio = result.cpuMs / control[round]!.cpuMs;
      expect(roundRatio, `round ${round}: CPU of 30 bombs / 30 valid batches: ${roundRatio.toFixed(2)}`).toBeLessThan(10);
    }
    for (const c of control) expect(c.answers.map((a) => a.status)).toEqual(Array(STORM).fill(204));
    const valid = stack.rawEvents(project).filter((e) => e.name === 'valid');
    expect(valid.map((e) => e.user_id).sort()).toEqual(
      Array.from({ length: ROUNDS }, (_, r) => [`valid-bombs-${r}`, `valid-valid batches-${r}`])
        .flat()
        .sort(),
    );

    // Ratios to the same number of valid batches, measured in the same run, so a slow or busy machine
    // slows both. Before the scan, 30 bombs took about 25 s of one core (JSON.parse of 5 MB of brackets,
    // 0.8-2 s each, one after the other on the event loop) against about 0.3 s for 30 valid batches,
    // and the valid batch waited 7-13 s, or more and got a 500 (its handler ran out of time) or a 408
    // (its body was not read within 10 s).
    const cpuRatio = sum(bombs.map((b) => b.cpuMs)) / sum(control.map((c) => c.cpuMs));
    const latencyRatio = median(bombs.map((b) => b.latencyMs)) / median(control.map((c) => c.latencyMs));
    expect(cpuRatio, `CPU of 30 bombs / 30 valid batches: ${cpuRatio.toFixed(2)}`).toBeLessThan(2);
    expect(latencyRatio, `valid batch's latency with 30 bombs / with 30 valid batches: ${latencyRatio.toFixed(2)}`).toBeLessThan(4);
    // Memory: before, 30 bombs pushed the server's peak RSS up by about 700 MB, to nearly 1 GB.
    const peakGrowthMB = Math.max(...bombs.map((b) => b.peakGrowthMB));
    expect(peakGrowthMB, `peak RSS growth during a bomb round: ${peakGrowthMB.toFixed(0)} MB`).toBeLessThan(200);
  }, 180_000);
});

/**
 * A batch of 8 events holding exactly `values` JSON values (LIMITS.maxJsonValues' count); with 100,000,
 * each event's properties are about 25 KB of JSON, within the 32 KiB an event may have.
 */
function batchOfValues(values: number, tag: string) {
  // Top level: the "events" member. Each event: itself, its name, its user_id (distinct events), its
  // properties and their "a" member (5), plus the elements of "a", spread over the events.
  const events = 8;
  let elements = values - 1 - 5 * events;
  return {
    events: Array.from({ length: events }, (_, i) => {
      const n = Math.ceil(elements / (events - i));
      elements -= n;
      return { name: `values-${tag}`, user_id: `u${i}`, properties: { a: Array(n).fill(i % 10) } };
    }),
  };
}

/** A batch of 4 events holding exactly `keys` distinct keys (events, name, user_id, properties, and the properties' own). */
function batchOfKeys(keys: number, tag: string) {
  let left = keys - 4;
  return {
    events: Array.from({ length: 4 }, (_, e) => {
      const n = Math.ceil(left / (4 - e));
      left -= n;
      return { name: `keys-${tag}`, user_id: `u${e}`, properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${e}-${i}`, 0])) };
    }),
  };
}

/** A batch nested exactly `depth` levels deep, padded past PARSE_AT_ONCE_BYTES so that it is scanned. */
function batchOfDepth(depth: number, tag: string) {
  // {events:[{properties:{x: ...}}]} is 4 levels; the rest nest inside x.
  let x: unknown = 1;
  for (let d = 4; d < depth; d++) x = [x];
  return { events: [{ name: `depth-${tag}`, properties: { x, pad: 'p'.repeat(PARSE_AT_ONCE_BYTES + 1024) } }] };
}

describe('the limits on the scanned path (bodies over 16 KiB)', () => {
  it('a batch of exactly 100,000 values is stored; one more value gets 413 naming the limit, compressed or not', async () => {
    expect(LIMITS.maxJsonValues).toBe(100_000);
    const atLimit = batchOfValues(LIMITS.maxJsonValues, 'at');
    expect(JSON.stringify(atLimit).length).toBeGreaterThan(PARSE_AT_ONCE_BYTES);
    expect((await stack.post('/v1/events', key, atLimit)).status).toBe(204);
    expect(stack.rawEvents(project).filter((e) => e.name === 'values-at')).toHaveLength(8);
    expect((await stack.post('/v1/events', key, batchOfValues(LIMITS.maxJsonValues, 'at'), { gzip: true })).status).toBe(204);

    const over = batchOfValues(LIMITS.maxJsonValues + 1, 'over');
    const message = 'Body holds more than 100000 JSON values (array elements and object members); send smaller batches';
    for (const gzip of [false, true]) {
      const v1 = await stack.post('/v1/events', key, over, { gzip });
      expect([v1.status, v1.json]).toEqual([413, { error: message }]);
      const api = await stack.post('/api/events', key, over, { gzip });
      expect([api.status, api.json]).toEqual([413, { success: false, error: message }]);
    }
    expect(stack.rawEvents(project).filter((e) => e.name === 'values-over')).toHaveLength(0);
  });

  it('a batch with exactly 10,000 distinct keys is stored; one more key gets 413 naming the limit, compressed or not', async () => {
    expect(LIMITS.maxJsonKeys).toBe(10_000);
    expect((await stack.post('/v1/events', key, batchOfKeys(LIMITS.maxJsonKeys, 'at'))).status).toBe(204);
    expect(stack.rawEvents(project).filter((e) => e.name === 'keys-at')).toHaveLength(4);
    const over = batchOfKeys(LIMITS.maxJsonKeys + 1, 'over');
    const message = 'Body holds more than 10000 distinct object keys; send smaller batches';
    for (const gzip of [false, true]) {
      const v1 = await stack.post('/v1/events', key, over, { gzip });
      expect([v1.status, v1.json]).toEqual([413, { error: message }]);
      const api = await stack.post('/api/events', key, over, { gzip });
      expect([api.status, api.json]).toEqual([413, { success: false, error: message }]);
    }
    expect(stack.rawEvents(project).filter((e) => e.name === 'keys-over')).toHaveLength(0);
  });

  it('a batch nested 32 levels deep is stored; 33 levels get 400, compressed or not', async () => {
    expect((await stack.post('/v1/events', key, batchOfDepth(32, 'at'))).status).toBe(204);
    expect((await stack.post('/v1/events', key, batchOfDepth(32, 'at-gz'), { gzip: true })).status).toBe(204);
    for (const gzip of [false, true]) {
      const res = await stack.post('/v1/events', key, batchOfDepth(33, 'over'), { gzip });
      expect([res.status, res.json]).toEqual([400, { error: 'Invalid payload format', message: 'JSON is nested deeper than 32 levels' }]);
    }
    expect(
      stack
        .rawEvents(project)
        .filter((e) => e.name.startsWith('depth-'))
        .map((e) => e.name),
    ).toEqual(['depth-at', 'depth-at-gz']);
  });

  it('a gzip body cut short after its first 16 KiB is not valid gzip (400)', async () => {
    // Random text compresses little: 4 events of 25 KB make well over 16 KiB of gzip, so the body is
    // inflated in slices, and more than a slice inflates before the cut.
    const random = prng(3);
    const text = () => Array.from({ length: 25_000 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');
    const whole = gzipSync(JSON.stringify({ events: Array.from({ length: 4 }, () => ({ name: 'cut', properties: { s: text() } })) }));
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    expect(cut.length).toBeGreaterThan(PARSE_AT_ONCE_BYTES);
    const res = await stack.post('/v1/events', key, undefined, { raw: cut, headers: { 'Content-Encoding': 'gzip' } });
    expect([res.status, res.json]).toEqual([
      400,
      { error: 'Invalid payload format', message: 'body is not valid gzip data (Content-Encoding: gzip was sent)' },
    ]);
  });
});

/** The local server's lane for large event batches (lambdas/local/large-batch-lane.ts). */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LARGE_BATCH_BYTES, LargeBatchLane, payloadBytes } from '../../lambdas/local/large-batch-lane';

describe('payloadBytes', () => {
  it('is the inflated size a gzip body declares, and the length of any other body', () => {
    const json = Buffer.from(
      JSON.stringify({
        events: Array.from({ length: 1000 }, (_, i) => ({
          name: 'page_view',
          user_id: `user-${i}`,
          timestamp: '2026-03-04T05:06:07.089Z',
          properties: { path: '/pricing' },
        })),
      }),
    );
    expect(json.length).toBeGreaterThan(LARGE_BATCH_BYTES);
    const gz = gzipSync(json);
    expect(gz.length).toBeLessThan(LARGE_BATCH_BYTES);
    expect(payloadBytes(gz, 'gzip')).toBe(json.length);
    expect(payloadBytes(gz, 'x-gzip')).toBe(json.length);
    expect(payloadBytes(json, undefined)).toBe(json.length);
    expect(payloadBytes(Buffer.from('{}'), 'gzip')).toBe(2);
  });
});

describe('LargeBatchLane', () => {
  it('runs one invocation at a time, in arrival order, each starting when the one before it ended', async () => {
    const lane = new LargeBatchLane(60_000);
    const log: string[] = [];
    const releases: Array<() => void> = [];
    const invocation = (name: string) => () => {
      log.push(`start ${name}`);
      return new Promise<string>((resolve) => releases.push(() => (log.push(`end ${name}`), resolve(name))));
    };
    const runs = ['a', 'b', 'c'].map((name) => lane.run(invocation(name)));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start a']);
    for (let i = 0; i < 3; i++) {
      releases[i]!();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('gives up on an invocation whose turn does not come within its wait, without running it, and goes on with the next', async () => {
    const lane = new LargeBatchLane(20);
    let release!: () => void;
    const first = lane.run(() => new Promise<string>((resolve) => (release = () => resolve('first'))));
    let ran = false;
    expect(await lane.run(async () => ((ran = true), 'second'))).toBe('timed_out');
    expect(ran).toBe(false);
    release();
    expect(await first).toBe('first');
    expect(await lane.run(async () => 'third')).toBe('third');
  });

  it('frees the lane when an invocation fails', async () => {
    const lane = new LargeBatchLane(1000);
    await expect(lane.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lane.run(async () => 'next')).toBe('next');
  });
});

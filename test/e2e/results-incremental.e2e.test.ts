/**
 * The incremental results job through the local stack (issue 13): events over HTTP under a controlled
 * clock, results through POST .../results/refresh, which counts from the experiment's state (Parquet
 * under the data directory) plus the raw events received since its watermark. Each case checks the
 * numbers a user sees against the counting rules, by hand:
 *  - a login ($identify) arriving days after the goal event it re-attributes, the goal event already
 *    in the state;
 *  - an event arriving after a run although received before it, inside the arrival allowance;
 *  - a stop in the middle of a day, with a late arrival from before the stop and events after it;
 *  - a run whose state write fails, and a run whose commit was lost: the results stay exact, and the
 *    next run advances the state without counting anything twice.
 */
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ARRIVAL_ALLOWANCE_MS } from '../../lambdas/domain/results-watermark';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-03-01T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('results-incremental', { clock: () => now }));
});
afterAll(() => stack.stop());

const at = (iso: string) => (now = Date.parse(iso));
const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
const base = () => `/admin/v1/projects/${project}/experiments`;
const exposure = (user: string, timestamp: string, experiment: string, variant: string) => ({
  name: '$experiment_exposure',
  user_id: user,
  timestamp,
  properties: { $experiment_name: experiment, $variant: variant },
});
const purchase = (user: string, timestamp: string) => ({ name: 'purchase', user_id: user, timestamp });

async function startExperiment(name: string, startedAt: string): Promise<string> {
  const id = (await stack.admin('POST', base(), { name, goal_event: 'purchase', variants: ['control', 'treatment'] })).body.id as string;
  at(startedAt);
  expect((await stack.admin('POST', `${base()}/${id}/start`)).body.started_at).toBe(startedAt);
  return id;
}

async function refresh(id: string) {
  const res = await stack.admin('POST', `${base()}/${id}/results/refresh`);
  expect(res.status).toBe(200);
  return res.body;
}
const counts = (r: any) => r.variants.map((v: any) => [v.variant, v.enrolled, v.converted]);

const stateDir = (id: string) => join(stack.dataDir, 'results-state', `project_id=${project}`, `experiment_id=${id}`);
const committedWatermark = (id: string): string | undefined => {
  const file = join(stateDir(id), 'watermark.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).watermark as string) : undefined;
};
const minusAllowance = (iso: string) => new Date(Date.parse(iso) - DEFAULT_ARRIVAL_ALLOWANCE_MS).toISOString();

describe('incremental results job', () => {
  it('converts an anonymous visitor when the login linking a goal event arrives days later, the goal event already in the state', async () => {
    const id = await startExperiment('Late Link', '2026-03-01T10:00:00.000Z');
    at('2026-03-01T20:00:00.000Z');
    await send([
      exposure('anon-1', '2026-03-01T11:00:00.000Z', 'Late Link', 'treatment'),
      exposure('c1', '2026-03-01T11:30:00.000Z', 'Late Link', 'control'),
      purchase('c1', '2026-03-01T12:00:00.000Z'),
      // A backend reports the purchase under the user ID; nothing links it to anon-1 yet.
      purchase('user-1', '2026-03-01T13:00:00.000Z'),
    ]);
    at('2026-03-01T22:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 1, 1],
      ['treatment', 1, 0],
    ]);
    at('2026-03-03T22:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 1, 1],
      ['treatment', 1, 0],
    ]);
    // The purchases were received before the committed watermark: they are in the state, not re-read.
    expect(committedWatermark(id)).toBe(minusAllowance('2026-03-03T22:00:00.000Z'));

    // Day 4: the login links user-1 to anon-1.
    at('2026-03-04T09:00:00.000Z');
    await send([{ name: '$identify', user_id: 'user-1', timestamp: '2026-03-04T09:00:00.000Z', properties: { $anonymous_id: 'anon-1' } }]);
    at('2026-03-04T10:00:00.000Z');
    const r = await refresh(id);
    expect(counts(r)).toEqual([
      ['control', 1, 1],
      ['treatment', 1, 1],
    ]);
    // Resolved as now: the conversion is on day 1, where the purchase happened.
    expect(r.series.map((p: any) => [p.date, p.variants[1].converted])).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 1],
      ['2026-03-03', 1],
      ['2026-03-04', 1],
    ]);
  });

  it('counts an event that reaches the raw stream after a run although it was received before it, inside the arrival allowance', async () => {
    const id = await startExperiment('Late Arrival', '2026-03-06T08:00:00.000Z');
    at('2026-03-06T09:00:00.000Z');
    await send([exposure('x', '2026-03-06T08:30:00.000Z', 'Late Arrival', 'treatment')]);
    at('2026-03-06T12:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 0, 0],
      ['treatment', 1, 0],
    ]);
    const watermark = committedWatermark(id)!;
    expect(watermark).toBe(minusAllowance('2026-03-06T12:00:00.000Z'));
    // Received 5 minutes before that run, but written to the stream only now (Firehose buffering).
    at('2026-03-06T11:55:00.000Z');
    await send([purchase('x', '2026-03-06T11:54:00.000Z')]);
    at('2026-03-06T13:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 0, 0],
      ['treatment', 1, 1],
    ]);
  });

  it('ends the window at a stop in the middle of a day: a late arrival from before the stop counts, events after it do not', async () => {
    const id = await startExperiment('Mid Day Stop', '2026-03-10T08:00:00.000Z');
    at('2026-03-10T11:00:00.000Z');
    await send([
      exposure('y1', '2026-03-10T10:30:00.000Z', 'Mid Day Stop', 'control'),
      exposure('y2', '2026-03-10T10:40:00.000Z', 'Mid Day Stop', 'treatment'),
    ]);
    at('2026-03-10T11:30:00.000Z');
    await refresh(id);
    at('2026-03-10T12:00:00.000Z');
    expect((await stack.admin('POST', `${base()}/${id}/stop`)).body.stopped_at).toBe('2026-03-10T12:00:00.000Z');
    at('2026-03-10T12:30:00.000Z');
    await send([
      purchase('y1', '2026-03-10T11:59:00.000Z'), // before the stop, arriving after it: counts
      purchase('y2', '2026-03-10T12:10:00.000Z'), // after the stop: does not
      exposure('y3', '2026-03-10T12:05:00.000Z', 'Mid Day Stop', 'control'), // after the stop: does not
    ]);
    at('2026-03-10T14:00:00.000Z');
    const r = await refresh(id);
    expect(r.window).toEqual({ from: '2026-03-10T08:00:00.000Z', to: '2026-03-10T12:00:00.000Z' });
    expect(counts(r)).toEqual([
      ['control', 1, 1],
      ['treatment', 1, 0],
    ]);
    // A 4-hour run: hourly points, the last one as of the stop (its hour starts at the stop).
    expect(r.series.map((p: any) => p.as_of)).toEqual([
      '2026-03-10T08:59:59.999Z',
      '2026-03-10T09:59:59.999Z',
      '2026-03-10T10:59:59.999Z',
      '2026-03-10T11:59:59.999Z',
      '2026-03-10T12:00:00.000Z',
    ]);
    // The state never takes in anything received after the stop.
    expect(committedWatermark(id)).toBe('2026-03-10T12:00:00.000Z');
  });

  it('stays exact when a run fails to write its state, and when a run lost its commit; the next run counts nothing twice', async () => {
    const id = await startExperiment('Restart', '2026-03-15T08:00:00.000Z');
    at('2026-03-15T12:00:00.000Z');
    await send([
      exposure('r1', '2026-03-15T09:00:00.000Z', 'Restart', 'control'),
      purchase('r1', '2026-03-15T10:00:00.000Z'),
      exposure('r2', '2026-03-15T11:00:00.000Z', 'Restart', 'treatment'),
    ]);
    at('2026-03-15T13:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 1, 1],
      ['treatment', 1, 0],
    ]);
    const first = committedWatermark(id)!;

    // The next slice starts on 03-15: a file where its directory must go makes the state write fail.
    const obstacle = join(stateDir(id), `dt=${first.slice(0, 10)}`);
    writeFileSync(obstacle, 'not a directory');
    at('2026-03-15T18:00:00.000Z');
    await send([purchase('r2', '2026-03-15T17:00:00.000Z'), exposure('r3', '2026-03-15T17:30:00.000Z', 'Restart', 'treatment')]);
    at('2026-03-15T20:00:00.000Z');
    const failed = await refresh(id);
    expect(counts(failed)).toEqual([
      ['control', 1, 1],
      ['treatment', 2, 1],
    ]);
    expect(committedWatermark(id)).toBe(first);

    // The restart: the write works again.
    rmSync(obstacle);
    at('2026-03-15T21:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 1, 1],
      ['treatment', 2, 1],
    ]);
    expect(committedWatermark(id)).toBe(minusAllowance('2026-03-15T21:00:00.000Z'));

    // A run that wrote its slice but lost its commit: the slices stay, the watermark goes back to the
    // base's (the closed days rolled up, committed apart). The next run summarises everything since
    // again, over the slices already there.
    rmSync(join(stateDir(id), 'watermark.json'));
    at('2026-03-16T09:00:00.000Z');
    await send([purchase('r3', '2026-03-16T08:00:00.000Z')]);
    at('2026-03-16T10:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 1, 1],
      ['treatment', 2, 2],
    ]);
    expect(committedWatermark(id)).toBe(minusAllowance('2026-03-16T10:00:00.000Z'));

    // Deleting the whole state rebuilds it from raw on the next run, with the same results.
    rmSync(stateDir(id), { recursive: true });
    mkdirSync(stateDir(id), { recursive: true });
    at('2026-03-16T11:00:00.000Z');
    expect(counts(await refresh(id))).toEqual([
      ['control', 1, 1],
      ['treatment', 2, 2],
    ]);
  });
});

/** The results job's scheduling, with fake stores, fake queries and (where time matters) a fake clock. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineExceeded, deadlineFrom } from '../../lambdas/domain/deadline';
import type { Experiment } from '../../lambdas/domain/experiment';
import { runResultsJob } from '../../lambdas/services/compute-results';
import type { CountOptions, CountRequest, CountResult, ExperimentResults } from '../../lambdas/ports';

const T0 = Date.UTC(2026, 0, 10);

function experiment(i: number): Experiment {
  return {
    id: `exp-${i}`,
    project_id: 'p',
    name: `E${i}`,
    variants: ['a', 'b'],
    weights: null,
    goal_event: 'buy',
    description: null,
    status: 'running',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:00.000Z',
    stopped_at: null,
  } as Experiment;
}

const zeros = (r: CountRequest): CountResult => ({ variants: r.variants.map((variant) => ({ variant, enrolled: 0, converted: 0 })), multipleExposures: 0 });

/** A job's dependencies over n running experiments; count() is the test's fake query. */
function jobDeps(n: number, count: (r: CountRequest, o?: CountOptions) => Promise<CountResult>, clock: () => number = Date.now) {
  const experiments = Array.from({ length: n }, (_, i) => experiment(i));
  const stored = new Map<string, ExperimentResults>();
  return {
    stored,
    deps: {
      clock,
      projects: {
        list: async () => [{ id: 'p', name: 'p', created_at: '' }],
        get: async () => undefined,
        create: async () => undefined,
        update: async () => undefined,
      },
      experiments: { list: async () => experiments } as never,
      results: { get: async (_p: string, id: string) => stored.get(id), put: async (_p: string, r: ExperimentResults) => void stored.set(r.experiment_id, r) },
      resultsQuery: { count },
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('results job scheduling', () => {
  it('computes experiments concurrently, never more than the bound at once', async () => {
    let inFlight = 0;
    let most = 0;
    const { deps } = jobDeps(10, async (r) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return zeros(r);
    });
    expect(await runResultsJob(deps, { concurrency: 3 })).toEqual({ computed: 10, changed: 10, skipped: 0, failed: 0, deferred: 0, breached: 0 });
    expect(most).toBe(3);
  });

  it('lets the other experiments finish while one query hangs until the deadline', async () => {
    const finished: string[] = [];
    const { deps } = jobDeps(6, async (r, o) => {
      if (r.experimentId === 'exp-0') {
        // A query that never finishes on its own: it stops at the deadline, as the Athena query does.
        await new Promise((resolve) => setTimeout(resolve, o!.deadlineMs! - Date.now()));
        throw new DeadlineExceeded('stopped at the deadline');
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      finished.push(r.experimentId);
      return zeros(r);
    });
    const started = Date.now();
    const summary = await runResultsJob(deps, { concurrency: 2, deadlineMs: started + 300 });
    expect(summary).toEqual({ computed: 5, changed: 5, skipped: 0, failed: 0, deferred: 1, breached: 0 });
    expect(finished.sort()).toEqual(['exp-1', 'exp-2', 'exp-3', 'exp-4', 'exp-5']);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('leaves experiments not reached by the deadline for the next run, logs them, and starts the next run with them', async () => {
    let now = T0;
    const order: string[] = [];
    const { deps } = jobDeps(
      5,
      async (r) => {
        order.push(r.experimentId);
        now += 100; // each query takes 100 ms of the fake clock
        return zeros(r);
      },
      () => now,
    );
    vi.stubEnv('TALLY_LOG_LEVEL', 'warn');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const first = await runResultsJob(deps, { concurrency: 1, deadlineMs: T0 + 250 });
    expect(first).toEqual({ computed: 3, changed: 3, skipped: 0, failed: 0, deferred: 2, breached: 0 });
    const warning = stderr.mock.calls.map((c) => JSON.parse(String(c[0]))).find((l) => l.level === 'warn');
    expect(warning).toMatchObject({ deferred: 2, experiment_ids: ['exp-3', 'exp-4'] });

    order.length = 0;
    const second = await runResultsJob(deps, { concurrency: 1, deadlineMs: now + 250 });
    expect(second.computed).toBe(3);
    expect(order).toEqual(['exp-3', 'exp-4', 'exp-0']); // never computed first, then the stalest
  });

  it('counts as changed only the experiments whose stated results moved since their last run (a first run included)', async () => {
    let converted = 0;
    const { deps } = jobDeps(3, async (r) => ({
      variants: r.variants.map((variant) => ({ variant, enrolled: 10, converted: r.experimentId === 'exp-1' ? converted : 0 })),
      multipleExposures: 0,
    }));
    expect((await runResultsJob(deps)).changed).toBe(3);
    // The next minute, nothing new: recomputed, not changed.
    expect(await runResultsJob(deps)).toMatchObject({ computed: 3, changed: 0 });
    converted = 4;
    expect(await runResultsJob(deps)).toMatchObject({ computed: 3, changed: 1 });
  });

  it('counts a failing experiment as failed and still computes the rest', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { deps } = jobDeps(4, async (r) => {
      if (r.experimentId === 'exp-1') throw new Error('TABLE_NOT_FOUND');
      return zeros(r);
    });
    expect(await runResultsJob(deps)).toEqual({ computed: 3, changed: 3, skipped: 0, failed: 1, deferred: 0, breached: 0 });
  });
});

describe('deadlineFrom', () => {
  it('keeps the margin back from the time the invocation has left, never going before now', () => {
    expect(deadlineFrom(T0, 600_000, 15_000)).toBe(T0 + 585_000);
    expect(deadlineFrom(T0, 10_000, 15_000)).toBe(T0);
  });
});

/** The unknown-experiment soft check knows every spelling an event may use to name an experiment. */
import { describe, expect, it } from 'vitest';
import { referencedExperiments, type Experiment } from '../../lambdas/domain/experiment';
import { ExperimentCatalog } from '../../lambdas/services/experiment-catalog';
import type { ExperimentStore } from '../../lambdas/ports';

const experiment = (name: string, status: Experiment['status']): Experiment => ({
  id: `id-${name}`,
  project_id: 'p',
  name,
  variants: ['a', 'b'],
  weights: null,
  goal_event: 'x',
  description: null,
  status,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  stopped_at: null,
});

describe('ExperimentCatalog.knownNames', () => {
  it("holds each experiment as configured, in Tally's snake_case and in the MGM SDKs' snake_case", async () => {
    const store = { list: async () => [experiment('Hero Banner', 'running'), experiment('checkoutFlow', 'stopped')] } as unknown as ExperimentStore;
    const known = await new ExperimentCatalog(store, 0).knownNames('p');
    const unknown = (name: string, properties: Record<string, unknown>) => referencedExperiments(name, properties).filter((n) => !known.has(n));
    for (const spelling of ['Hero Banner', 'hero_banner', 'hero__banner', 'checkoutFlow', 'checkout_flow']) {
      expect(unknown('$experiment_exposure', { $experiment_name: spelling, $variant: 'a' }), spelling).toEqual([]);
      expect(unknown('page_view', { [`$experiment_${spelling}`]: 'a' }), spelling).toEqual([]);
    }
    expect(unknown('$experiment_exposure', { $experiment_name: 'HERO BANNER', $variant: 'a' })).toEqual(['HERO BANNER']);
    expect(unknown('page_view', { $experiment_herobanner: 'a' })).toEqual(['herobanner']);
  });
});

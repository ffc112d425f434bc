/** The dashboard's checks of an experiment draft: plain words, and the API's own limits. */
import { describe, expect, it } from 'vitest';
import { draftWeights, EXPERIMENT_LIMITS, experimentDraftProblems, type ExperimentDraft } from '../../lambdas/domain/experiment-fields';
import { weightsProblem } from '../../lambdas/domain/variant-weights';
import { CreateExperiment } from '../../lambdas/handlers/experiments-admin';

const ok: ExperimentDraft = { name: 'Checkout button', goal_event: 'purchase', variants: ['control', 'green'], weights: null, description: '' };

describe('experimentDraftProblems', () => {
  it('finds nothing in a good draft', () => {
    expect(experimentDraftProblems(ok)).toEqual({});
  });

  it('names each problem in plain words, per field, never by its API name', () => {
    const problems = experimentDraftProblems({ name: '  ', goal_event: '', variants: ['a', 'a'], weights: null, description: 'x'.repeat(2001) });
    expect(problems).toEqual({
      name: 'Give the experiment a name, for example “Checkout button”.',
      goal_event: 'Choose the goal event: the event that counts as a conversion, for example “purchase”.',
      variants: 'Give each variant its own name: “a” appears more than once.',
      description: 'Shorten the description to 2000 characters or fewer (it has 2001).',
    });
    for (const message of Object.values(problems)) expect(message).not.toMatch(/goal_event|variants must/);
    expect(experimentDraftProblems({ ...ok, variants: ['control', ' '] }).variants).toBe('Give every variant a name: variant 2 is empty.');
    expect(experimentDraftProblems({ ...ok, name: '!!!' }).name).toBe('Use at least one letter or digit in the name.');
  });

  it('finds a name that clashes with another experiment’s in any spelling the API compares', () => {
    const others = ['Checkout Flow', 'pricing'];
    for (const name of ['checkout flow', 'checkout-flow', 'CheckoutFlow', ' Checkout Flow ']) {
      expect(experimentDraftProblems({ ...ok, name }, others).name, name).toBe(
        'Another experiment is called “Checkout Flow”: names must differ by more than case, spaces and punctuation. Choose another name.',
      );
    }
    expect(experimentDraftProblems({ ...ok, name: 'Checkout Flow 2' }, others)).toEqual({});
  });

  it('agrees with the API at every limit: what it lets through the API accepts, and what it stops the API refuses', () => {
    const L = EXPERIMENT_LIMITS;
    const drafts: ExperimentDraft[] = [
      { ...ok, name: 'n'.repeat(L.nameLength) },
      { ...ok, name: 'n'.repeat(L.nameLength + 1) },
      { ...ok, goal_event: 'g'.repeat(L.goalEventLength) },
      { ...ok, goal_event: 'g'.repeat(L.goalEventLength + 1) },
      { ...ok, variants: ['a', 'v'.repeat(L.variantLength)] },
      { ...ok, variants: ['a', 'v'.repeat(L.variantLength + 1)] },
      { ...ok, variants: Array.from({ length: L.maxVariants }, (_, i) => `v${i}`) },
      { ...ok, variants: Array.from({ length: L.maxVariants + 1 }, (_, i) => `v${i}`) },
      { ...ok, variants: ['only'] },
      { ...ok, description: 'd'.repeat(L.descriptionLength) },
      { ...ok, description: 'd'.repeat(L.descriptionLength + 1) },
    ];
    for (const draft of drafts) {
      const clientOk = Object.keys(experimentDraftProblems(draft)).length === 0;
      expect(CreateExperiment.safeParse({ ...draft, weights: draftWeights(draft) }).success, JSON.stringify(draft).slice(0, 80)).toBe(clientOk);
    }
  });

  it('checks weights as the API does: whole percentages of at least 1 that add up to 100, or an equal split', () => {
    expect(experimentDraftProblems({ ...ok, weights: ['90', '10'] })).toEqual({});
    expect(experimentDraftProblems({ ...ok, weights: ['60', '30'] }).weights).toBe('The weights add up to 90%: make them add up to 100%.');
    expect(experimentDraftProblems({ ...ok, weights: ['99.5', '0.5'] }).weights).toBe('Weights are whole percentages: give variant 1 a number from 1 to 99.');
    expect(experimentDraftProblems({ ...ok, weights: ['100', '0'] }).weights).toBe(
      'Give variant 2 at least 1%, or remove it: a variant without traffic cannot be compared.',
    );
    expect(experimentDraftProblems({ ...ok, weights: ['', '10'] }).weights).toBe('Weights are whole percentages: give variant 1 a number from 1 to 99.');
    for (const weights of [
      ['90', '10'],
      ['60', '30'],
      ['100', '0'],
    ]) {
      const draft = { ...ok, weights };
      const apiProblem = weightsProblem(draft.variants, draftWeights(draft)!);
      expect(apiProblem === undefined, weights.join('/')).toBe(experimentDraftProblems(draft).weights === undefined);
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  draftMetric,
  EMPTY_METRIC,
  METRIC_LIMITS,
  metricDraft,
  metricDraftProblems,
  metricsProblem,
  type MetricDraft,
} from '../../lambdas/domain/experiment-metric-fields';

const revenue: MetricDraft = { ...EMPTY_METRIC, name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', cap: '0.99' };

describe('a metric as the form holds it', () => {
  it('is sent with only the fields its kind and role use', () => {
    expect(draftMetric(revenue)).toEqual({ name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.99 });
    const guardrail = draftMetric({
      ...EMPTY_METRIC,
      name: ' Errors ',
      event: 'error',
      kind: 'count',
      property: 'left over',
      role: 'guardrail',
      direction: 'increase',
    });
    expect(guardrail).toEqual({ name: 'Errors', event: 'error', kind: 'count', role: 'guardrail', direction: 'increase' });
    expect(metricDraft(draftMetric(revenue))).toEqual(revenue);
  });

  it('is checked with the API’s limits and rules', () => {
    const L = METRIC_LIMITS;
    const long = { ...revenue, name: 'n'.repeat(L.nameLength + 1), event: 'e'.repeat(L.eventLength + 1) };
    expect(metricDraftProblems('purchase', [long])[0]).toEqual({
      name: `Shorten the name to ${L.nameLength} characters or fewer (it has ${L.nameLength + 1}).`,
      event: `Event names have at most ${L.eventLength} characters (this one has ${L.eventLength + 1}).`,
    });
    expect(metricDraftProblems('purchase', [{ ...revenue, name: 'n'.repeat(L.nameLength), event: 'e'.repeat(L.eventLength) }])).toEqual({});
    expect(metricDraftProblems('purchase', [revenue, { ...revenue }])[1]?.name).toBe('Another metric is called “Revenue”: give each metric its own name.');
    for (const cap of ['0', '1', 'x', '-0.5', '1e-200', '0.3', '0.99999'])
      expect(metricDraftProblems('purchase', [{ ...revenue, cap }])[0]?.cap).toContain('from 0.5 to 0.9999');
    // Whatever the form accepts, the API's rules across fields accept too.
    expect(metricsProblem('purchase', [draftMetric(revenue)])).toBeUndefined();
    expect(metricsProblem('Revenue', [draftMetric(revenue)])?.path).toBe('0.name');
    // A summed property is read literally (property-name.ts), JSON-path syntax included; refused: a
    // double quote or a backslash (no JSON path reads them alike on both engines), and what no event key
    // can be (NUL, half an emoji).
    for (const property of ['*', '[*]', '..', '$', "it's", 'a.b']) {
      expect(metricDraftProblems('purchase', [{ ...revenue, property }])).toEqual({});
      expect(metricsProblem('purchase', [draftMetric({ ...revenue, property })])).toBeUndefined();
    }
    for (const property of ['a"b', 'a\\b', 'a\u0000b', '\ud83d']) {
      expect(metricDraftProblems('purchase', [{ ...revenue, property }])[0]?.property).toBe(
        'Property names cannot contain a double quote, a backslash, U+0000 (NUL) or half of an emoji.',
      );
      expect(metricsProblem('purchase', [draftMetric({ ...revenue, property })])?.path).toBe('0.property');
    }
  });
});

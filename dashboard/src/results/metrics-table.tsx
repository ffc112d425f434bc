/**
 * The results' metrics in one table, the experiment's own analysis (sequential and corrected as its
 * settings say): the primary metric (the goal's conversion, the verdict's) first, then the secondary
 * metrics and guardrails, a row per metric and variant against the control, with both means ± standard
 * error, the difference with its 95% interval and its p-value (and, when the experiment has a
 * correction, the adjusted p-value the decision rests on), then the relative difference with its own
 * interval and p-value: each interval beside the p-value of its own test. A breached guardrail is
 * marked in its row, and GuardrailBanner says so at the top of the page. Whether the intervals and
 * p-values are sequential is stated above the table. Results without `metrics` (computed before them)
 * show none of this. Metric and variant names are the team's own: rendered as text.
 */
import type { MetricResult, VariantComparison } from '../../../lambdas/domain/metric-results';
import type { MetricKind } from '../../../lambdas/domain/metric-moments';
import { cupedLookbackDays, DEFAULT_CORRECTION, DEFAULT_SEQUENTIAL } from '../../../lambdas/domain/experiment-metric-fields';
import { cupedWorthText } from '../../../lambdas/domain/cuped-worth';
import type { Experiment, Results } from '../admin-types';
import { CORRECTION_NAMES } from './correction-names';
import { formatMeanWithError, formatMetricDifference } from './format-metric';
import { formatInterval, formatPValue, formatRelative } from './format-stats';
import { NumbersTable } from './numbers-table';

const KIND_WORDS = { conversion: 'conversion', count: 'count per user', sum: 'sum per user' } as const;
const ROLE_WORDS = { primary: ', primary', secondary: '', guardrail: ', guardrail' } as const;

/** At the top of the results: which guardrails a variant made worse, significantly. */
export function GuardrailBanner({ results }: { results: Results }) {
  const breached = (results.metrics ?? []).filter((m) => m.role === 'guardrail' && m.breached);
  if (!results.guardrail_breached && breached.length === 0) return null;
  return (
    <div role="alert" class="guardrail-banner">
      <strong>Guardrail breached.</strong>{' '}
      {breached.length > 0 ? (
        <>
          {breached.map((m, i) => (
            <span key={m.name}>
              {i > 0 && (i === breached.length - 1 ? ' and ' : ', ')}“{m.name}”
            </span>
          ))}{' '}
          moved in the direction marked bad, significantly, for at least one variant.
        </>
      ) : (
        'A guardrail metric moved in the direction marked bad, significantly.'
      )}{' '}
      Look at the guardrail rows below before shipping a variant.
    </div>
  );
}

/** A comparison's relative difference with its 95% interval beneath (the metrics table's and the breakdowns' cell). */
export function RelativeDifference({ comparison: c }: { comparison: Pick<VariantComparison, 'relative_difference' | 'relative_ci_low' | 'relative_ci_high'> }) {
  return (
    <span>
      {formatRelative(c.relative_difference)}
      <span class="interval">{formatInterval(c.relative_ci_low, c.relative_ci_high, formatRelative)}</span>
    </span>
  );
}

/** A comparison's difference with its 95% interval beneath (the metrics table's and the breakdowns' cell). */
export function Difference({ kind, comparison: c }: { kind: MetricKind; comparison: Pick<VariantComparison, 'difference' | 'ci_low' | 'ci_high'> }) {
  return (
    <span>
      {formatMetricDifference(kind, c.difference)}
      <span class="interval">{formatInterval(c.ci_low, c.ci_high, (x) => formatMetricDifference(kind, x))}</span>
    </span>
  );
}

/** A metric's name with its kind and role, as its row's header; with CUPED, what it gained. */
function MetricName({ metric: m }: { metric: MetricResult }) {
  const worth = m.cuped ? cupedWorthText(m.variance_reduction) : null;
  return (
    <>
      <span class="metric-name">{m.name}</span>
      <span class="hint">
        {' '}
        ({KIND_WORDS[m.kind]}
        {ROLE_WORDS[m.role]})
      </span>
      {worth && <span class="cuped-worth">CUPED: {worth}</span>}
    </>
  );
}

export function MetricsSection({ experiment, results }: { experiment: Experiment; results: Results }) {
  const metrics = results.metrics ?? [];
  if (metrics.length === 0) return null;
  const sequential = experiment.sequential ?? DEFAULT_SEQUENTIAL;
  const correction = experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction;
  const adjusted = correction !== null;
  const cupedDays = cupedLookbackDays(experiment);
  const columns = [
    'Metric',
    'Variant',
    'Control mean',
    'Variant mean',
    'Difference (95% interval)',
    'p-value',
    ...(adjusted ? [`Adjusted p-value (${CORRECTION_NAMES[correction]})`] : []),
    'Relative difference (95% interval)',
    'p-value (relative)',
  ];
  return (
    <>
      <h2>Metrics</h2>
      <p class="hint metrics-basis">
        Means are per enrolled user, ± their standard error; the first metric is the primary one, the verdict's.{' '}
        {sequential
          ? 'Sequential testing is on: the intervals and p-values are always valid, so looking at every computation does not make false results likelier.'
          : 'Sequential testing is off: the intervals and p-values are fixed-horizon, valid when read once at the planned end; looking repeatedly makes false results likelier.'}{' '}
        {adjusted
          ? `The adjusted p-values are corrected with ${CORRECTION_NAMES[correction]} across every variant on the goal and the secondary metrics; guardrails use the raw p-value, so no harm is hidden.`
          : 'No correction for many comparisons: with several metrics, some p-values below 0.05 are expected by chance.'}{' '}
        Each p-value belongs to the interval before it: the difference's, then the relative difference's.{' '}
        {cupedDays === undefined
          ? 'CUPED is off: the comparisons are unadjusted.'
          : `CUPED is on: each comparison is adjusted by every user's own value of the metric in the ${cupedDays} days before their first exposure (the means shown are unadjusted); a metric says how much variance that removed.`}
      </p>
      <NumbersTable label="Metrics" columns={columns} name="metrics" csv="metrics">
        {metrics.flatMap((m) => {
          if (m.unavailable !== undefined) {
            // A metric that cannot be computed says why; the others, and the verdict, are unaffected.
            return [
              <tr key={`${m.name}\u0000`} class="unavailable">
                <th scope="row">
                  <MetricName metric={m} />
                </th>
                <td colSpan={columns.length - 1} data-unavailable>
                  Cannot be computed: {m.unavailable}. A running experiment’s metrics cannot be changed: stop it, then create a new experiment with the
                  corrected metric.
                </td>
              </tr>,
            ];
          }
          const control = m.variants[0];
          return m.comparisons.map((c) => {
            const variant = m.variants.find((v) => v.variant === c.variant);
            const breachedRow = m.breached === true;
            return (
              <tr key={`${m.name}\u0000${c.variant}`} class={breachedRow ? 'breached' : m.role === 'primary' ? 'primary' : undefined}>
                <th scope="row">
                  <MetricName metric={m} />
                  {breachedRow && <span class="breached-mark"> Guardrail breached</span>}
                </th>
                <td>{c.variant}</td>
                <td>{formatMeanWithError(m.kind, control?.mean, control?.std_error)}</td>
                <td>{formatMeanWithError(m.kind, variant?.mean, variant?.std_error)}</td>
                <td>
                  <Difference kind={m.kind} comparison={c} />
                </td>
                <td>{formatPValue(c.p_value)}</td>
                {adjusted && <td>{m.role === 'guardrail' ? 'not adjusted' : formatPValue(c.adjusted_p_value)}</td>}
                <td>
                  <RelativeDifference comparison={c} />
                </td>
                <td>{formatPValue(c.relative_p_value)}</td>
              </tr>
            );
          });
        })}
      </NumbersTable>
    </>
  );
}

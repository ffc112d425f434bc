/**
 * The results' breakdowns (issue 22, "Breakdowns"; docs/decisions/breakdowns.md): a "Breakdown by"
 * select (None, Platform, Country, App version) and, for the chosen dimension, one table with a row
 * group per segment (the top values, "Other values", "Unknown"): per variant the enrolled users, the
 * converted and the conversion rate ± its standard error, and per treatment the relative difference
 * with its interval, the p-value and the adjusted p-value (corrected across the dimension's
 * segments). One table rather than one per segment, so the columns line up from segment to segment;
 * below 600 px each variant is a card under its segment's name (numbers-table.tsx).
 *
 * A native <select>: one labelled control a keyboard and a screen reader use as they use every other
 * select of the dashboard (Trends' "Break down by" is one), and four choices fit in it at 375 px where
 * a row of radio buttons would wrap. The choice is the page's own state: the results page keeps
 * nothing in its address, so a reload shows None again (Refresh keeps the choice: the section stays
 * mounted while the results are read again).
 *
 * Segment values come from clients' events: rendered as text.
 */
import { useState } from 'preact/hooks';
import { BREAKDOWN_TOP_VALUES } from '../../../lambdas/domain/breakdown-segments';
import { DEFAULT_CORRECTION, DEFAULT_SEQUENTIAL } from '../../../lambdas/domain/experiment-metric-fields';
import type { BreakdownDimension, Experiment, Results, SegmentResult } from '../admin-types';
import { FloorNote } from './floor-note';
import { formatMeanWithError } from './format-metric';
import { formatCount, formatPValue } from './format-stats';
import { CORRECTION_NAMES } from './correction-names';
import { Difference, RelativeDifference } from './metrics-table';
import { NumbersTable } from './numbers-table';

/** The select's choices, in the API's order: the dimension and its name in a label and in a sentence. */
const DIMENSIONS: ReadonlyArray<{ dimension: BreakdownDimension; label: string; words: string }> = [
  { dimension: 'platform', label: 'Platform', words: 'platform' },
  { dimension: 'country', label: 'Country', words: 'country' },
  { dimension: 'app_version', label: 'App version', words: 'app version' },
];

function SegmentName({ segment, words }: { segment: SegmentResult; words: string }) {
  if (segment.kind === 'other') {
    return (
      <>
        Other values<span class="hint"> (every value beyond the top {BREAKDOWN_TOP_VALUES}, summed)</span>
      </>
    );
  }
  if (segment.kind === 'unknown') {
    return (
      <>
        Unknown<span class="hint"> (no {words} on the enrollment event)</span>
      </>
    );
  }
  return <span class="segment-value">{segment.value}</span>;
}

export function BreakdownSection({ experiment, results }: { experiment: Experiment; results: Results }) {
  const [chosen, setChosen] = useState<BreakdownDimension | ''>('');
  const breakdowns = results.breakdowns;
  const enrolled = breakdowns?.some((b) => b.segments.length > 0) ?? false;
  return (
    <section class="breakdowns" aria-labelledby="breakdowns-heading">
      <h2 id="breakdowns-heading">Breakdowns</h2>
      {breakdowns === undefined ? (
        <p class="empty-state">
          These results were computed before breakdowns existed, so they have none. Press Refresh to compute them again with the breakdowns.
        </p>
      ) : !enrolled ? (
        <p class="empty-state">No one is enrolled yet, so there is nothing to break down: the breakdowns appear once users enroll.</p>
      ) : (
        <>
          <p class="breakdown-picker">
            <label for="breakdown-by">Breakdown by</label>
            <select id="breakdown-by" value={chosen} onChange={(e) => setChosen(e.currentTarget.value as BreakdownDimension | '')}>
              <option value="">None</option>
              {DIMENSIONS.map((d) => (
                <option key={d.dimension} value={d.dimension}>
                  {d.label}
                </option>
              ))}
            </select>
          </p>
          {chosen !== '' && <BreakdownTable experiment={experiment} results={results} dimension={chosen} />}
        </>
      )}
    </section>
  );
}

function BreakdownTable({ experiment, results, dimension }: { experiment: Experiment; results: Results; dimension: BreakdownDimension }) {
  const { words } = DIMENSIONS.find((d) => d.dimension === dimension)!;
  const segments = results.breakdowns?.find((b) => b.dimension === dimension)?.segments ?? [];
  if (segments.length === 0) return <p class="empty-state">No users in these results have a {words} segment yet.</p>;
  const correction = experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction;
  const sequential = experiment.sequential ?? DEFAULT_SEQUENTIAL;
  const columns = [
    'Variant',
    'Enrolled',
    'Converted',
    'Conversion rate',
    'Difference (95% interval)',
    'p-value',
    ...(correction !== null ? [`Adjusted p-value (${CORRECTION_NAMES[correction]})`] : []),
    'Relative difference (95% interval)',
    'p-value (relative)',
  ];
  return (
    <>
      <p class="hint breakdown-basis">
        The primary metric, <code>{experiment.goal_event}</code> (the share of enrolled users who sent it at or after enrolling), per {words} of each user’s
        first enrollment event: the {BREAKDOWN_TOP_VALUES} values with the most enrolled users, then the others summed and the users without one. Conversion
        rates ± their standard error; {sequential ? 'sequential (always valid)' : 'fixed-horizon'} intervals and p-values.{' '}
        {correction !== null
          ? `The adjusted p-values are corrected with ${CORRECTION_NAMES[correction]} across every variant in every ${words} segment below; the p-value before each is the raw one. Each p-value belongs to the interval before it.`
          : 'No correction for many comparisons: with several segments, some p-values below 0.05 are expected by chance.'}{' '}
        A segment has fewer users than the experiment: its intervals are wider, and a difference in one segment is a lead to check, not a verdict.
      </p>
      <NumbersTable label={`Primary metric (${experiment.goal_event}) by ${words}`} columns={columns} name="breakdown" csv={`breakdown-${words}`}>
        {segments.map((segment) => {
          const [control] = segment.variants;
          return (
            <tbody key={`${segment.kind}\u0000${segment.value}`} data-segment-kind={segment.kind}>
              <tr class="segment-head">
                <th scope="rowgroup" colSpan={columns.length}>
                  <SegmentName segment={segment} words={words} />
                </th>
              </tr>
              {segment.variants.map((v) => {
                const comparison = v === control ? undefined : segment.comparisons.find((c) => c.variant === v.variant);
                return (
                  <tr key={v.variant}>
                    <th scope="row">
                      {v.variant}
                      {v === control && <span class="hint"> (control)</span>}
                    </th>
                    <td>{formatCount(v.users)}</td>
                    <td>{formatCount(v.conversions)}</td>
                    <td>{formatMeanWithError('conversion', v.mean, v.std_error)}</td>
                    <td>{comparison && <Difference kind="conversion" comparison={comparison} />}</td>
                    <td>{comparison && formatPValue(comparison.p_value)}</td>
                    {correction !== null && <td>{comparison && formatPValue(comparison.adjusted_p_value)}</td>}
                    <td>{comparison && <RelativeDifference comparison={comparison} />}</td>
                    <td>{comparison && formatPValue(comparison.relative_p_value)}</td>
                  </tr>
                );
              })}
            </tbody>
          );
        })}
      </NumbersTable>
      <FloorNote lows={segments.flatMap((s) => s.comparisons.map((c) => c.relative_ci_low))} />
    </>
  );
}

/**
 * "How this was computed": the counting rules, the experiment's analysis (its test, sequential or
 * fixed-horizon, and its correction with its family, as lambdas/domain/primary-analysis.ts states them)
 * and the exact query the engine ran, so an analyst can reproduce the numbers (in Athena on AWS).
 */
import { CopyButton } from '../components/copy-button';
import { formatTime } from '../format-time';
import type { Experiment, Results } from '../admin-types';
import { cupedLookbackDays, DEFAULT_CORRECTION, DEFAULT_SEQUENTIAL } from '../../../lambdas/domain/experiment-metric-fields';
import { primaryAnalysis } from '../../../lambdas/domain/primary-analysis';
import { CORRECTION_NAMES } from './correction-names';
import { resultsFinality } from './results-finality';

export function HowComputed({ experiment, results }: { experiment: Experiment; results: Results }) {
  const computation = results.computation;
  // The experiment's settings name the test even before results carry metrics.
  const analysis = primaryAnalysis(results, experiment) ?? {
    sequential: experiment.sequential ?? DEFAULT_SEQUENTIAL,
    correction: experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction,
    family_size: 0,
  };
  const cupedDays = cupedLookbackDays(experiment);
  return (
    <section class="how-computed" aria-labelledby="how-computed-title">
      <h2 id="how-computed-title">How this was computed</h2>
      <h3>Counting</h3>
      <ul>
        <li>
          <strong>Window:</strong> events from the start ({formatTime(results.window.from)}) to{' '}
          {resultsFinality(experiment, results.window).kind === 'final' ? 'the stop' : 'the computation'} ({formatTime(results.window.to)}).
        </li>
        <li>
          <strong>Enrollment (first exposure):</strong> a user is enrolled in the variant named by their first <code>$experiment_exposure</code> for this
          experiment, or their first event carrying the <code>$experiment_…</code> super property, whichever comes first. Variants that are not configured are
          ignored.
        </li>
        <li>
          <strong>Identity resolution:</strong> every ID is resolved to its canonical user through the identity links as they are now, so events sent under any
          linked ID count, even those sent before the link (a server-side purchase under the user ID converts the anonymous visitor).
        </li>
        <li>
          <strong>Conversion:</strong> a <code>{experiment.goal_event}</code> event of the same user at or after their enrollment and within the window. Users
          are counted, not events.
        </li>
        <li>
          <strong>Multiple exposures:</strong> a user exposed to more than one variant counts in the first one, and in the multiple-exposure count (
          {results.multiple_exposures}).
        </li>
        <li>
          <strong>Over time:</strong> each point counts the users enrolled up to the end of its UTC hour (while the run is under 3 days) or UTC day and, of
          those, the ones converted by then.
        </li>
      </ul>
      <h3>Methods</h3>
      <ul>
        <li>The first variant is the control. Each metric's mean is per enrolled user, ± its standard error.</li>
        <li>
          <strong>Test:</strong>{' '}
          {analysis.sequential
            ? 'sequential, always valid: a two-sided test of the difference of means whose intervals and p-values stay valid however often they are looked at (GrowthBook’s gbstats SequentialTwoSidedTTest, tuning parameter 5000).'
            : 'fixed-horizon: a two-sided Welch t-test of the difference of means (GrowthBook’s gbstats TwoSidedTTest), valid when read once at the planned end.'}{' '}
          The relative difference has its own interval and p-value (delta method); 95% intervals throughout.
        </li>
        <li>
          <strong>Correction:</strong>{' '}
          {analysis.correction === null
            ? 'none: every p-value is the raw one.'
            : `${CORRECTION_NAMES[analysis.correction]}, across the ${analysis.family_size} ${analysis.family_size === 1 ? 'comparison' : 'comparisons'} of every variant on the goal and the secondary metrics (guardrails are not adjusted). The verdict rests on the adjusted p-value of the difference.`}
        </li>
        <li>
          <strong>CUPED:</strong>{' '}
          {cupedDays === undefined
            ? 'off: the comparisons are unadjusted.'
            : `on: every metric, the primary one included, is adjusted by its covariate, each user's own value of the same metric in the ${cupedDays} days before their first exposure (the covariate window; users without pre-exposure events count 0), with the regression coefficient θ pooled over the two variants compared (GrowthBook’s gbstats RegressionAdjustedStatistic; the relative difference by the delta method). The means shown are unadjusted; each metric shows its variance reduction.`}
        </li>
        <li>The relative interval is cut at −100% where a value cannot be negative (a conversion rate, a count).</li>
        <li>
          Sample-ratio mismatch: chi-square goodness-of-fit test of the enrolled counts against the split the experiment aims for (its weights, or an equal
          split), flagged when p &lt; 0.001.
        </li>
        <li>
          The results API also keeps older fields (<code>comparisons</code>, with Wilson and Newcombe intervals, a pooled z-test and a chance to beat control):
          a fixed-horizon, uncorrected analysis for older clients, not shown on this page.
        </li>
        <li>"—" marks a number that cannot be computed from the data (for example, no one enrolled).</li>
      </ul>
      <h3>The query</h3>
      {computation ? (
        <>
          <p>
            {computation.engine === 'athena'
              ? 'Run by Athena over the raw event and identity streams. Paste it into the Athena console (the stack’s analysts workgroup) to reproduce the counts: the rows with neither a period nor a dimension and the metric [] are the totals (the other metrics’ rows carry their sums); those with a dimension count the breakdowns, those with a period the hourly or daily points of the series.'
              : 'Run locally by DuckDB over the raw event files, through views named like the Athena tables: it runs unchanged in duckdb -init <data dir>/views.sql (the file npm start writes). On AWS, Athena runs the same text over the Glue tables. The rows with neither a period nor a dimension and the metric [] are the totals (the other metrics’ rows carry their sums); those with a dimension count the breakdowns, those with a period the hourly or daily points of the series.'}
          </p>
          <CopyButton text={computation.query} label="Copy query" />
          <pre class="query-text" tabIndex={0} aria-label={`Counting query (${computation.engine})`}>
            <code>{computation.query}</code>
          </pre>
        </>
      ) : (
        <p>This deployment's results engine does not report its query.</p>
      )}
    </section>
  );
}

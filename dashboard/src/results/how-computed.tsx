/**
 * "How this was computed": the counting rules, the statistical methods (as lambdas/domain/stats.ts
 * and relative-lift.ts implement them) and the exact query the engine ran, so an analyst can
 * reproduce the numbers (in Athena on AWS).
 */
import { CopyButton } from '../components/copy-button';
import { formatTime } from '../format-time';
import type { Experiment, Results } from '../admin-types';
import { resultsFinality } from './results-finality';

export function HowComputed({ experiment, results }: { experiment: Experiment; results: Results }) {
  const computation = results.computation;
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
        <li>Conversion rate interval: 95% Wilson score interval. The first variant is the control.</li>
        <li>Absolute difference: Newcombe's hybrid score interval (method 10); p-value from a two-sided pooled two-proportion z-test.</li>
        <li>
          Relative difference (variant rate / control rate − 1): 95% interval by the delta method, p-value from Welch's t-test on the 0/1 outcomes, as
          GrowthBook's gbstats computes them; the interval is cut at −100%, since a conversion rate cannot fall below zero.
        </li>
        <li>
          Chance to beat control: Bayesian probability that the variant's rate exceeds the control's, with Beta(1, 1) priors (Evan Miller's exact sum; a normal
          approximation for very large counts).
        </li>
        <li>
          Sample-ratio mismatch: chi-square goodness-of-fit test of the enrolled counts against the split the experiment aims for (its weights, or an equal
          split), flagged when p &lt; 0.001.
        </li>
        <li>"—" marks a number that cannot be computed from the data (for example, no one enrolled).</li>
      </ul>
      <h3>The query</h3>
      {computation ? (
        <>
          <p>
            {computation.engine === 'athena'
              ? 'Run by Athena over the raw event and identity streams. Paste it into the Athena console (the stack’s analysts workgroup) to reproduce the counts: the rows without a period are the totals, the others the hourly or daily counts of the series.'
              : 'Run locally by DuckDB over the raw event files, with tally_events and tally_identities as views over them; on AWS, Athena runs the same text over the Glue tables. The rows without a period are the totals, the others the hourly or daily counts of the series.'}
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

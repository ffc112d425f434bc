/**
 * The results of an experiment: per-variant table, comparison with control, the interval and
 * over-time charts, the sample-ratio check (a warning when it fails, a line when it passes), the
 * verdict on the primary metric with what it rests on, the multiple-exposure count, when it was
 * computed (final, or still finishing after a stop), Refresh, and "How this was computed"; with
 * metrics beyond the goal (issue 22), their table and a banner when a guardrail is breached; the
 * breakdowns of the primary metric by platform, country or app version (issue 22).
 * Empty states: not started, not computed yet, no one enrolled.
 */
import { SampleProgressLine } from '../results/sample-progress';
import { useState } from 'preact/hooks';
import type { Experiment, Results, VariantStats } from '../admin-types';
import { ApiError } from '../api';
import { errorText, useAsync } from '../components/async-view';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format-time';
import { variantShares } from '../format-weights';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import '../results/results.css';
import { IntervalChart, SeriesChart } from '../results/charts';
import {
  formatChance,
  formatCount,
  formatInterval,
  formatPercent,
  formatPoints,
  formatPStatement,
  formatPValue,
  formatRelative,
  ALPHA,
} from '../results/format-stats';
import { BreakdownSection } from '../results/breakdown-section';
import { FloorNote } from '../results/floor-note';
import { HowComputed } from '../results/how-computed';
import { GuardrailBanner, MetricsSection } from '../results/metrics-table';
import { NumbersTable } from '../results/numbers-table';
import { resultsFinality } from '../results/results-finality';
import { untestable, verdict } from '../results/verdict';

/** The stored results, or null when none are computed yet (404) or the experiment has not started (409). */
async function readResults(get: () => Promise<Results>): Promise<Results | null> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 409)) return null;
    throw err;
  }
}

export function ResultsPage({ api, params }: PageProps) {
  const { projectId, experimentId } = params as { projectId: string; experimentId: string };
  const path = `/admin/v1/projects/${encodeURIComponent(projectId)}/experiments/${encodeURIComponent(experimentId)}`;
  const experiment = useAsync(() => api.get<Experiment>(path), [api, path]);
  const status = experiment.data?.status;
  // Results exist only once started: a created experiment is not asked for them.
  const results = useAsync(
    () => (status === undefined || status === 'created' ? Promise.resolve(null) : readResults(() => api.get<Results>(`${path}/results`))),
    [api, path, status],
  );
  const [refreshing, setRefreshing] = useState(false);
  const [refreshError, setRefreshError] = useState<string | null>(null);

  async function refresh() {
    setRefreshing(true);
    setRefreshError(null);
    try {
      await api.post(`${path}/results/refresh`);
      await Promise.all([results.reload(), experiment.reload()]);
    } catch (err) {
      setRefreshError(errorText(err));
    } finally {
      setRefreshing(false);
    }
  }

  const exp = experiment.data;
  const res = results.data;
  const loadError = experiment.error ?? results.error;
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'experiments')}`}>Experiments</a>
        {exp && (
          <>
            {' / '}
            <a href={`#${pathOf('projects', projectId, 'experiments', experimentId)}`}>{exp.name}</a>
          </>
        )}
      </p>
      <div class="page-heading">
        <h1>Results{exp ? `: ${exp.name}` : ''}</h1>
        {exp && <StatusBadge status={exp.status} />}
        {exp && exp.status !== 'created' && (
          <button type="button" class="secondary" onClick={() => void refresh()} disabled={refreshing} aria-describedby="computed-at">
            Refresh
          </button>
        )}
      </div>
      {loadError !== null && (
        <p class="error" role="alert">
          Could not load the results: {loadError}
        </p>
      )}
      {refreshError !== null && (
        <p class="error" role="alert">
          Could not refresh the results: {refreshError}
        </p>
      )}
      <p role="status" class="status-line">
        {refreshing ? 'Computing the results…' : ''}
      </p>
      {!exp || results.data === undefined || (results.loading && results.data === null) ? (
        loadError === null && (
          <p class="muted" role="status">
            Loading…
          </p>
        )
      ) : exp.status === 'created' ? (
        <p class="empty-state">
          This experiment has not started, so there are no results yet.{' '}
          <a href={`#${pathOf('projects', projectId, 'experiments', experimentId)}`}>Start it from its page.</a>
        </p>
      ) : res === null || res === undefined ? (
        <p class="empty-state">Not computed yet. Results are computed by the scheduled job after the start; press Refresh to compute them now.</p>
      ) : (
        <ResultsBody experiment={exp} results={res} />
      )}
    </>
  );
}

function ResultsBody({ experiment, results }: { experiment: Experiment; results: Results }) {
  const enrolled = results.variants.reduce((n, v) => n + v.enrolled, 0);
  const running = experiment.status === 'running';
  const finality = resultsFinality(experiment, results.window);
  const [control] = results.variants;
  const figures = (variant: string) => results.variants.find((v) => v.variant === variant);
  return (
    <>
      <p class="computed-at" id="computed-at">
        Computed {formatTime(results.computed_at)} over {formatTime(results.window.from)} to {formatTime(results.window.to)}
        {finality.kind === 'final' ? ' (stopped: these results are final)' : ''}. Goal: <code>{experiment.goal_event}</code>.
      </p>
      <GuardrailBanner results={results} />
      {finality.kind === 'finishing' && (
        <p class="finishing" role="status">
          <strong>Finishing.</strong> The experiment stopped {formatTime(finality.stoppedAt)}, but these results cover the run only up to{' '}
          {formatTime(finality.coveredTo)}. The final results, over the whole run, come with the next computation (the scheduled job runs every few minutes;
          Refresh computes them now).
        </p>
      )}
      {results.srm.flagged && (
        <div role="alert" class="srm-warning">
          <strong>Sample ratio mismatch.</strong> The variants enrolled {results.variants.map((v) => formatCount(v.enrolled)).join(' / ')} users, far from the{' '}
          {variantShares(experiment)
            .map((v) => v.share)
            .join(' / ')}{' '}
          split the assignment aims for{experiment.weights === null ? ' (an equal split)' : ' (its weights)'} (chi-square test,{' '}
          {formatPStatement(results.srm.p_value)}). Exposure logging or assignment is likely broken for some users; do not trust these results until you find
          why.
        </div>
      )}
      {!results.srm.flagged && <SrmPassed results={results} />}
      <SampleProgressLine experiment={experiment} results={results} enrolled={enrolled} />
      {enrolled === 0 ? (
        <p class="empty-state">
          No one is enrolled yet. Users enroll with their first <code>$experiment_exposure</code> event (or an event carrying the experiment's super property)
          after the start.
        </p>
      ) : (
        <>
          <p class="verdict-basis">
            The verdict rests on the primary metric: the share of enrolled users who sent <code>{experiment.goal_event}</code> at or after enrolling, each
            variant against the control, two-sided test of the difference in rates (significant when p &lt; {ALPHA}).
          </p>
          <ul class="verdicts">
            {results.comparisons.map((c) => {
              const variant = figures(c.variant);
              return variant && control ? <li key={c.variant}>{verdict({ comparison: c, variant, control, goal: experiment.goal_event, running })}</li> : null;
            })}
          </ul>
          <p>
            Multiple exposures: <strong>{formatCount(results.multiple_exposures)}</strong> {results.multiple_exposures === 1 ? 'user was' : 'users were'}{' '}
            exposed to more than one variant (each counts in the first).
          </p>
        </>
      )}
      <h2>Variants</h2>
      <NumbersTable label="Variants" columns={['Variant', 'Enrolled', 'Converted', 'Conversion rate', '95% interval']} name="variants">
        {results.variants.map((v, i) => (
          <tr key={v.variant}>
            <th scope="row">
              {v.variant}
              {i === 0 && <span class="hint"> (control)</span>}
            </th>
            <td>{formatCount(v.enrolled)}</td>
            <td>{formatCount(v.converted)}</td>
            <td>{formatPercent(v.conversion_rate)}</td>
            <td>{formatInterval(v.ci_low, v.ci_high, formatPercent)}</td>
          </tr>
        ))}
      </NumbersTable>
      <h2>Compared with control</h2>
      <NumbersTable
        label="Compared with control"
        columns={['Variant', 'Difference', '95% interval', 'p-value', 'Relative difference', '95% interval', 'p-value (relative)', 'Chance to beat control']}
        cardLabels={['Variant', 'Difference', '95% interval', 'p-value', 'Relative difference', 'Its 95% interval', 'Its p-value', 'Chance to beat control']}
        name="comparisons"
      >
        {results.comparisons.map((c) => (
          <tr key={c.variant}>
            <th scope="row">{c.variant}</th>
            <td>{formatPoints(c.absolute_diff)}</td>
            <td>{formatInterval(c.ci_low, c.ci_high, formatPoints)}</td>
            <td>{formatPValue(c.p_value)}</td>
            <td>{formatRelative(c.relative_diff)}</td>
            <td>{formatInterval(c.relative_ci_low, c.relative_ci_high, formatRelative)}</td>
            <td>{formatPValue(c.relative_p_value)}</td>
            <td>
              {formatChance(c.chance_to_beat_control)}
              {c.chance_to_beat_control !== null && isPriorOnly(figures(c.variant), control) && <span class="hint"> (prior only)</span>}
            </td>
          </tr>
        ))}
      </NumbersTable>
      <FloorNote lows={results.comparisons.map((c) => c.relative_ci_low)} />
      <MetricsSection experiment={experiment} results={results} />
      {enrolled > 0 && (
        <>
          <h2>Difference to control</h2>
          <IntervalChart comparisons={results.comparisons} />
          <h2>Conversion over time</h2>
          {results.series.length > 0 ? (
            <SeriesChart series={results.series} variants={results.variants.map((v) => v.variant)} />
          ) : (
            <p class="empty-state">No series yet: it appears with the next computation.</p>
          )}
        </>
      )}
      <BreakdownSection experiment={experiment} results={results} />
      <HowComputed experiment={experiment} results={results} />
    </>
  );
}

/** Both sides at the same all-or-nothing rate: the chance to beat control reflects only the prior and the group sizes. */
function isPriorOnly(variant: VariantStats | undefined, control: VariantStats | undefined): boolean {
  if (!variant || !control) return false;
  const why = untestable(variant, control);
  return why === 'all-converted' || why === 'none-converted';
}

/** The sample-ratio check when it does not flag: shown always, with its p-value, so a healthy split is seen to be checked. */
function SrmPassed({ results }: { results: Results }) {
  const counts = results.variants.map((v) => formatCount(v.enrolled)).join(' / ');
  if (results.srm.p_value === null) {
    return <p class="srm-passed">Sample ratio check: not run yet (it needs enrolled users).</p>;
  }
  return (
    <p class="srm-passed">
      <strong>Sample ratio check passed.</strong> The variants enrolled {counts} users, consistent with the split the assignment aims for (chi-square test,{' '}
      {formatPStatement(results.srm.p_value)}; it fails below p = 0.001).
    </p>
  );
}

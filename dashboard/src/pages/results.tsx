/**
 * The results of an experiment: per-variant counts, the metrics table (the primary metric first, then
 * the secondary metrics and guardrails), the interval and over-time charts, the sample-ratio check (a
 * warning when it fails, a line when it passes), the verdict on the primary metric with what it rests
 * on, the multiple-exposure count, when it was computed (final, or still finishing after a stop),
 * Refresh, and "How this was computed"; a banner when a guardrail is breached; the breakdowns of the
 * primary metric by platform, country or app version. Every figure of a comparison comes from the
 * experiment's own analysis (lambdas/domain/primary-analysis.ts), as the experiments list's do; the
 * older fixed-horizon top-level comparisons are not shown.
 * Empty states: not started, not computed yet, no one enrolled.
 */
import { SampleProgressLine } from '../results/sample-progress';
import { primaryAnalysis, ALPHA } from '../../../lambdas/domain/primary-analysis';
import { useState } from 'preact/hooks';
import type { Experiment, Results } from '../admin-types';
import { ApiError } from '../api';
import { errorText, useAsync } from '../components/async-view';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format-time';
import { variantShares } from '../format-weights';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import { useCan } from '../role';
import { ReadOnlyNote } from '../components/read-only-note';
import '../results/results.css';
import { IntervalChart, SeriesChart } from '../results/charts';
import { formatCount, formatPercent, formatPStatement } from '../results/format-stats';
import { CORRECTION_NAMES } from '../results/correction-names';
import { BreakdownSection } from '../results/breakdown-section';
import { FloorNote } from '../results/floor-note';
import { HowComputed } from '../results/how-computed';
import { GuardrailBanner, MetricsSection } from '../results/metrics-table';
import { NumbersTable } from '../results/numbers-table';
import { resultsFinality } from '../results/results-finality';
import { verdict } from '../results/verdict';

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
  const canRefresh = useCan('experimenter');

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
        {exp && exp.status !== 'created' && canRefresh && (
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
      {exp && exp.status !== 'created' && !canRefresh && <ReadOnlyNote needed="experimenter" what="refresh the results" />}
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
  const analysis = primaryAnalysis(results, experiment);
  const test = analysis?.sequential === false ? 'fixed-horizon' : 'sequential';
  return (
    <>
      <p class="computed-at" id="computed-at">
        Computed {formatTime(results.computed_at)} over {formatTime(results.window.from)} to {formatTime(results.window.to)}
        {finality.kind === 'final' ? ' (stopped: these results are final)' : ''}. Goal: <code>{experiment.goal_event}</code>.
      </p>
      <GuardrailBanner results={results} />
      {results.retention_notice && (
        <p class="retention-notice" role="status" id="retention-notice">
          <strong>Events expire.</strong> {results.retention_notice.message}
        </p>
      )}
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
      ) : analysis === null ? (
        <p class="empty-state">
          These results were computed before experiments had their own analysis (sequential testing and a correction). Press Refresh to compute them again.
        </p>
      ) : (
        <>
          <p class="verdict-basis">
            The verdict rests on the primary metric: the share of enrolled users who sent <code>{experiment.goal_event}</code> at or after enrolling, each
            variant against the control, {analysis.sequential ? 'a sequential (always-valid) test' : 'a fixed-horizon test'} of the difference in rates
            {analysis.correction === null
              ? ', with no correction for many comparisons'
              : `, its p-value adjusted with ${CORRECTION_NAMES[analysis.correction]} across the ${formatCount(analysis.family_size)} ${analysis.family_size === 1 ? 'comparison' : 'comparisons'} of the goal and the secondary metrics`}{' '}
            (significant when p &lt; {ALPHA}).
          </p>
          <ul class="verdicts">
            {analysis.comparisons.map((c) => {
              const variant = figures(c.variant);
              return variant && control ? (
                <li key={c.variant}>
                  {verdict({ analysis, comparison: c, variant, control, controlName: control.variant, goal: experiment.goal_event, running })}
                </li>
              ) : null;
            })}
          </ul>
          <p>
            Multiple exposures: <strong>{formatCount(results.multiple_exposures)}</strong> {results.multiple_exposures === 1 ? 'user was' : 'users were'}{' '}
            exposed to more than one variant (each counts in the first).
          </p>
        </>
      )}
      <h2>Variants</h2>
      <NumbersTable label="Variants" columns={['Variant', 'Enrolled', 'Converted', 'Conversion rate']} name="variants" csv="variants">
        {results.variants.map((v, i) => (
          <tr key={v.variant}>
            <th scope="row">
              {v.variant}
              {i === 0 && <span class="hint"> (control)</span>}
            </th>
            <td>{formatCount(v.enrolled)}</td>
            <td>{formatCount(v.converted)}</td>
            <td>{formatPercent(v.conversion_rate)}</td>
          </tr>
        ))}
      </NumbersTable>
      <MetricsSection experiment={experiment} results={results} />
      {analysis && <FloorNote lows={analysis.comparisons.map((c) => c.relative_ci_low)} />}
      {enrolled > 0 && (
        <>
          {analysis && (
            <>
              <h2>Difference to control</h2>
              <IntervalChart comparisons={analysis.comparisons} test={test} />
            </>
          )}
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

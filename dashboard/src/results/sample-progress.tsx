/**
 * Progress toward the planned sample (the experiment's planned_users, set from the planning
 * calculator): "N of M users (x%), about D days left at the current rate" (domain/sample-progress.ts).
 */
import { sampleProgress } from '../../../lambdas/domain/sample-progress';
import type { Experiment, Results } from '../admin-types';
import { formatCount, formatPercent } from './format-stats';

export function SampleProgressLine({ experiment, results, enrolled }: { experiment: Experiment; results: Results; enrolled: number }) {
  const planned = experiment.planned_users;
  if (planned === null || planned === undefined) return null;
  const p = sampleProgress(enrolled, planned, results.window, experiment.status === 'running');
  const rest = p.reached
    ? ': the planned sample is reached.'
    : p.days_left !== null
      ? `, about ${formatCount(p.days_left)} ${p.days_left === 1 ? 'day' : 'days'} left at the current rate (${formatCount(Math.round(p.users_per_day!))} a day).`
      : experiment.status === 'running'
        ? ': no one enrolled yet, so no rate to go by.'
        : ': stopped short of the planned sample.';
  return (
    <div class="sample-progress">
      <p id="sample-progress-text">
        <strong>Planned sample:</strong> {formatCount(p.enrolled)} of {formatCount(p.planned)} users ({formatPercent(p.share)}){rest}
      </p>
      <progress max={p.planned} value={Math.min(p.enrolled, p.planned)} aria-labelledby="sample-progress-text" />
    </div>
  );
}

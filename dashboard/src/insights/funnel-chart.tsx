/**
 * A funnel (issue 25): per step a horizontal bar as long as the step's share of the first step's
 * users, with the users, the conversion from the first and from the previous step, the drop-off and
 * the median time from the step before as text; and the same numbers in a table (the accessible
 * form, and the one to copy from). A step is named with its filter ("purchase where plan = pro").
 * Event names and values are rendered as text. Presentational.
 */
import { formatPercent } from '../results/format-stats';
import { NumbersTable } from '../results/numbers-table';
import { formatDuration } from './format-duration';
import { stepName } from './funnel-draft';
import type { FunnelGroup } from './funnel-types';
import './insights.css';

export function FunnelChart({ group, title }: { group: FunnelGroup; title: string }) {
  const first = group.steps[0]?.users ?? 0;
  return (
    <figure class="funnel" data-funnel={group.breakdown_value ?? ''} data-kind={group.breakdown_kind ?? ''}>
      <figcaption>{title}</figcaption>
      <ol class="funnel-bars">
        {group.steps.map((s) => (
          <li key={s.step} class="funnel-step">
            <div class="funnel-label">
              <span class="funnel-name">
                {s.step}. {stepName(s)}
              </span>
              <span class="funnel-users">
                {s.users.toLocaleString('en-US')} user{s.users === 1 ? '' : 's'} · {formatPercent(s.conversion_from_first)}
              </span>
            </div>
            <div class="funnel-track" aria-hidden="true">
              <div class="funnel-bar" style={{ width: `${first > 0 ? (100 * s.users) / first : 0}%` }} />
            </div>
            {s.step > 1 && (
              <p class="funnel-drop muted">
                {formatPercent(s.conversion_from_previous)} of the step before · {s.drop_off.toLocaleString('en-US')} dropped off · median{' '}
                {formatDuration(s.median_seconds_from_previous)}
              </p>
            )}
          </li>
        ))}
      </ol>
      <details>
        <summary>Numbers</summary>
        <NumbersTable
          label={`${title}: numbers`}
          name="funnel"
          csv={`funnel-${title}`}
          columns={['Step', 'Users', 'From first', 'From previous', 'Dropped off', 'Median time']}
        >
          {group.steps.map((s) => (
            <tr key={s.step}>
              <th scope="row">
                {s.step}. {stepName(s)}
              </th>
              <td>{s.users.toLocaleString('en-US')}</td>
              <td>{formatPercent(s.conversion_from_first)}</td>
              <td>{formatPercent(s.conversion_from_previous)}</td>
              <td>{s.drop_off.toLocaleString('en-US')}</td>
              <td>{formatDuration(s.median_seconds_from_previous)}</td>
            </tr>
          ))}
        </NumbersTable>
      </details>
    </figure>
  );
}

/**
 * A retention triangle (issue 25): a row per cohort (its first day and size), a column per period,
 * each cell the users who came back and their share of the cohort as text, shaded by the share in
 * eleven steps (a class, so the page's CSP needs no inline styles). Cells after date_to, or after the
 * data's end, are empty; a cell still counting (today's day, this week) is marked "so far" and hatched.
 * Presentational.
 */
import { useRef } from 'preact/hooks';
import { CsvButton } from '../components/csv-button';
import { formatPercent } from '../results/format-stats';
import type { RetentionResult } from './funnel-types';
import './insights.css';

/** The shade step of a share: 0 (none) to 10 (everyone). */
export const shadeOf = (share: number) => Math.max(0, Math.min(10, Math.round(share * 10)));

export function RetentionTable({ result }: { result: RetentionResult }) {
  const unit = result.interval === 'day' ? 'Day' : 'Week';
  const periods = Array.from({ length: result.periods }, (_, i) => i);
  const table = useRef<HTMLTableElement>(null);
  return (
    <>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={`Retention by ${result.interval}`}>
        <table class="retention" data-table="retention" ref={table}>
          <caption class="visually-hidden">
            Users who did {result.start_event} first on a {result.interval}, and the share who did {result.return_event} in each later {result.interval}
          </caption>
          <thead>
            <tr>
              <th scope="col">Cohort</th>
              <th scope="col">Users</th>
              {periods.map((p) => (
                <th scope="col" key={p}>
                  {unit} {p}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.cohorts.map((c) => (
              <tr key={c.cohort}>
                <th scope="row">{c.cohort}</th>
                <td>{c.users.toLocaleString('en-US')}</td>
                {periods.map((p) => {
                  const cell = c.periods[p];
                  if (!cell) return <td key={p} class="retention-none" />;
                  const partial = cell.complete === false;
                  return (
                    <td
                      key={p}
                      class={`retention-cell shade-${shadeOf(cell.share)}${partial ? ' retention-partial' : ''}`}
                      data-csv={`${formatPercent(cell.share)} (${cell.users.toLocaleString('en-US')} users${partial ? ', so far' : ''})`}
                    >
                      <span class="retention-share">{formatPercent(cell.share)}</span>
                      <span class="retention-users">{cell.users.toLocaleString('en-US')}</span>
                      {partial && <span class="retention-so-far">so far</span>}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <CsvButton table={table} name={`retention-${result.start_event}-${result.return_event}`} label={`Retention by ${result.interval}`} />
    </>
  );
}

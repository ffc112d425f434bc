/** Where an insight's query is: starting, running (with its ID and what was read so far), failed. */
import { formatTime } from '../format-time';
import type { InsightQueryState } from './use-insight-query';

export function InsightProgress<R>({ state }: { state: InsightQueryState<R> }) {
  const { phase, answer } = state;
  return (
    <p role="status" class="status-line insight-progress">
      {phase === 'starting'
        ? 'Starting the query…'
        : phase === 'running' && answer
          ? `Running on ${answer.engine === 'athena' ? 'Athena' : 'DuckDB'} since ${formatTime(answer.started_at)}${
              answer.bytes_scanned ? `, ${formatBytes(answer.bytes_scanned)} read so far` : ''
            }. You can leave this page: the query goes on, and this link comes back to it.`
          : ''}
    </p>
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** An experiment's status (created, running or stopped) in a coloured pill; the word itself carries the meaning, not the colour. */
import type { ExperimentStatus } from '../admin-types';

export function StatusBadge({ status }: { status: ExperimentStatus }) {
  return <span class={`status-badge status-${status}`}>{status}</span>;
}

/**
 * An experiment's status (created, running or stopped) or a deletion's state (pending, running, done)
 * in a coloured pill; the word itself carries the meaning, not the colour.
 */
import type { DeletionView, ExperimentStatus } from '../admin-types';

export function StatusBadge({ status }: { status: ExperimentStatus | DeletionView['state'] }) {
  return <span class={`status-badge status-${status}`}>{status}</span>;
}

import type { ExperimentStatus } from './types';

const TEXT: Record<ExperimentStatus, string> = { created: 'created', running: 'running', stopped: 'stopped' };

/** The experiment's status as a label (the word itself, so colour is never the only cue). */
export function StatusBadge({ status }: { status: ExperimentStatus }) {
  return <span class={`status-badge status-${status}`}>{TEXT[status] ?? status}</span>;
}

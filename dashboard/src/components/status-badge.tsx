/** A short status word in a coloured pill (an experiment's created, running or stopped); the word itself carries the meaning, not the colour. */
export function StatusBadge({ status }: { status: string }) {
  const tone = status === 'running' ? 'ok' : status === 'stopped' ? 'done' : 'neutral';
  return <span class={`badge badge-${tone}`}>{status}</span>;
}

/** How dates and times are shown on every page (as text, never HTML). */

/** "2026-11-22 15:30:12 UTC": unambiguous and the same for everyone on the team; "—" when there is none. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

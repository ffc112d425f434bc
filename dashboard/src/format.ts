/** How dates and values are shown on the pages (as text, never HTML). */

/** "2026-11-22 15:30:12 UTC": unambiguous and the same for everyone on the team. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A value as JSON text for a <pre> (text content: Preact escapes it). */
export function asJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}

/** A duration in seconds as a person reads it: "45 s", "30 min", "22.5 h", "3.2 d"; "–" for none. Pure. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '–';
  const one = (n: number) => String(Math.round(n * 10) / 10);
  if (seconds < 60) return `${one(seconds)} s`;
  if (seconds < 3600) return `${one(seconds / 60)} min`;
  if (seconds < 86_400) return `${one(seconds / 3600)} h`;
  return `${one(seconds / 86_400)} d`;
}

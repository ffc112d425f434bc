/**
 * Structured JSON logs, one object per line. Callers pass facts (IDs, counts, timings), never
 * request bodies, event payloads, keys or tokens.
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;
export const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];

function threshold(): number {
  const level = (process.env.TALLY_LOG_LEVEL ?? 'info') as LogLevel;
  return LEVELS[level] ?? LEVELS.info;
}

export function log(level: Exclude<LogLevel, 'silent'>, msg: string, fields: Record<string, unknown> = {}): void {
  if (LEVELS[level] < threshold()) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(line + '\n');
  else process.stdout.write(line + '\n');
}

/** Error name and message only: AWS SDK errors can carry request parameters in other fields. */
export function errorFields(err: unknown): Record<string, string> {
  if (err instanceof Error) return { error_name: err.name, error_message: err.message.slice(0, 300) };
  return { error_name: typeof err };
}

/**
 * Structured logs: one record per line, JSON by default (what CloudWatch and the tests read). Callers
 * pass facts (IDs, counts, timings), never request bodies, event payloads, keys or tokens. `npm start`
 * swaps in a compact text writer for the terminal (lambdas/local/terminal-log.ts, TALLY_LOG_FORMAT).
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;
export const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];

/** One log record as a writer receives it. */
export interface LogRecord {
  level: Exclude<LogLevel, 'silent'>;
  /** ISO 8601 UTC. */
  time: string;
  msg: string;
  fields: Record<string, unknown>;
}

export type LogWriter = (record: LogRecord) => void;

/** JSON, one object per line: warnings and errors to stderr, the rest to stdout. */
export const jsonLogWriter: LogWriter = ({ level, time, msg, fields }) => {
  const line = JSON.stringify({ level, time, msg, ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(line + '\n');
  else process.stdout.write(line + '\n');
};

let writer: LogWriter = jsonLogWriter;

/** Replaces where records go (undefined: back to JSON lines). */
export function setLogWriter(next: LogWriter | undefined): void {
  writer = next ?? jsonLogWriter;
}

function threshold(): number {
  const level = (process.env.TALLY_LOG_LEVEL ?? 'info') as LogLevel;
  return LEVELS[level] ?? LEVELS.info;
}

export function log(level: Exclude<LogLevel, 'silent'>, msg: string, fields: Record<string, unknown> = {}): void {
  if (LEVELS[level] < threshold()) return;
  writer({ level, time: new Date().toISOString(), msg, fields });
}

/** Error name and message only: AWS SDK errors can carry request parameters in other fields. */
export function errorFields(err: unknown): Record<string, string> {
  if (err instanceof Error) return { error_name: err.name, error_message: err.message.slice(0, 300) };
  return { error_name: typeof err };
}

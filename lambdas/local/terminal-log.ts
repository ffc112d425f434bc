/**
 * `npm start`'s terminal: log records as short text lines instead of JSON (TALLY_LOG_FORMAT=text, the
 * default there). A request is one line, `12:04:05 POST /v1/events 204 12 ms · 20 events · project <id>`
 * (a refused key: `… 401 1 ms · key refused: unknown or revoked key`), naming the route as the
 * manifest writes it (`/admin/v1/projects/{project_id}/users/{id}`), never the path as sent, so no ID
 * or other client value reaches the terminal. Other records keep their fields as `name=value`.
 * Every REMINDER_EVERY lines a reminder of the base URL and where the admin token is repeats, so
 * both stay within a screen of the newest line however much traffic scrolls the banner away.
 */
import type { LogRecord, LogWriter } from '../logging/log';
import { ROUTES } from '../routes';

/** Lines between two reminders: about one terminal screen. */
export const REMINDER_EVERY = 25;

const ROUTE_LINES: ReadonlyMap<string, string> = new Map(ROUTES.map((r) => [r.name as string, `${r.method} ${r.path}`]));

/** `HH:MM:SS` of an ISO time, in UTC like every time Tally prints. */
const clock = (time: string) => time.slice(11, 19);

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? 'undefined';
}

const count = (n: number, noun: string) => `${NUMBER.format(n)} ${noun}${n === 1 ? '' : 's'}`;
const NUMBER = new Intl.NumberFormat('en-US');

/**
 * What a request line adds after its status: a batch's event count and its project (the key's project ID,
 * as the authorizer found it), or why a project key was refused. Counts and Tally's IDs only.
 */
function requestDetails(fields: Record<string, unknown>): string {
  const details: string[] = [];
  if (typeof fields.events === 'number') details.push(count(fields.events, 'event'));
  if (typeof fields.suppressed === 'number') details.push(`${NUMBER.format(fields.suppressed)} dropped (suppressed IDs)`);
  if (typeof fields.project_id === 'string') details.push(`project ${fields.project_id}`);
  if (typeof fields.refused === 'string') details.push(`key refused: ${fields.refused}`);
  return details.length ? ` · ${details.join(' · ')}` : '';
}

/**
 * The line of one record, or null for a record the terminal leaves out: the results job's run
 * summary when no experiment's results changed (and none failed or was deferred), and its per-experiment counting details (JSON logs keep both).
 */
export function terminalLine(record: LogRecord): string | null {
  const { level, time, msg, fields } = record;
  if (msg === 'request') {
    const route = typeof fields.route === 'string' ? (ROUTE_LINES.get(fields.route) ?? fields.route) : `${String(fields.method ?? '')} (no route)`.trim();
    const ms = typeof fields.duration_ms === 'number' ? ` ${fields.duration_ms} ms` : '';
    return `${clock(time)} ${route} ${String(fields.status)}${ms}${requestDetails(fields)}`;
  }
  if (msg === 'results counted incrementally') return null;
  if (msg === 'results job finished') {
    const { changed = 0, failed = 0, deferred = 0 } = fields as Record<string, number>;
    // Only a run that changed something, or could not: a run that recomputed the same figures is silent.
    if (changed + failed + deferred === 0) return null;
    return `${clock(time)} results job: results changed for ${count(changed, 'experiment')}, ${failed} failed, ${deferred} left for the next run`;
  }
  const rest = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${fieldText(v)}`)
    .join(' ');
  return `${clock(time)} ${level === 'info' ? '' : `${level.toUpperCase()} `}${msg}${rest ? ` (${rest})` : ''}`;
}

export interface TerminalLogOptions {
  /** The reminder line (base URL, dashboard, where the admin token is); empty: none yet (still starting). */
  reminder: () => string;
  /** Where lines go; default: warnings and errors to stderr, the rest to stdout. */
  write?: (line: string, level: LogRecord['level']) => void;
}

export function terminalLogWriter({ reminder, write }: TerminalLogOptions): LogWriter {
  const out =
    write ?? ((line: string, level: LogRecord['level']) => (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(`${line}\n`));
  let sinceReminder = 0;
  return (record) => {
    const line = terminalLine(record);
    if (line === null) return;
    if (sinceReminder >= REMINDER_EVERY && reminder()) {
      out(reminder(), 'info');
      sinceReminder = 0;
    }
    out(line, record.level);
    sinceReminder++;
  };
}

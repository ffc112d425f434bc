/**
 * `npm run redrive`'s work: every object under errors/ is read, its error records decoded
 * (lambdas/domain/undelivered-record.ts), their rows put to the stream the object's key names
 * (errors/events/… or errors/identities/…) through the raw stream the handlers use
 * (FirehoseRawStream), and the object settled (bin/redrive/objects.ts): moved to redriven/ when every
 * line was re-sent, rewritten with only the lines left (each with its `redriveError`) when some could not
 * be, left as it is when nothing changed. A second run therefore re-sends nothing it re-sent before;
 * were it to (a run stopped between the put and the move), readers count the event once by its dedupe_key.
 */
import { errorRecordTexts, redriveLine, type RedriveFailure, type UndeliveredStream } from '../../lambdas/domain/undelivered-record';
import type { RawStream } from '../../lambdas/ports';
import type { ErrorObjects } from './objects';

export interface RedriveOptions {
  objects: ErrorObjects;
  /** The raw streams, by the key segment after errors/. */
  streams: Record<UndeliveredStream, RawStream<object>>;
  /** Where the rows go, for the first line ("Firehose streams a and b", "the local Firehose stand-in over <dir>"). */
  describeStreams: string;
  now?: () => number;
  /** Where the lines go. @default console.log */
  print?: (line: string) => void;
}

export interface RedriveSummary {
  objects: number;
  /** Rows re-sent, by stream. */
  resent: Record<UndeliveredStream, number>;
  /** Objects moved whole to redriven/. */
  moved: number;
  /** Lines left under errors/, by the kind of reason. */
  left: Partial<Record<RedriveFailure['kind'] | 'not under errors/events/ or errors/identities/', number>>;
  /** Objects whose rows the stream refused (left as they were; run again). */
  failed: number;
}

const STREAM_OF: Record<string, UndeliveredStream> = { events: 'events', identities: 'identities' };
const RECORDS: Record<UndeliveredStream, string> = { events: 'event(s)', identities: 'identity record(s)' };

/** A line left in errors/: the error record with its reason, or (not an error record) the line as it was, with the reason beside it. */
function leftLine(line: string, reason: string): string {
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record && typeof record === 'object' && !Array.isArray(record)) {
      return typeof record.redriveError === 'string' ? line : JSON.stringify({ ...record, redriveError: reason });
    }
  } catch {
    // not JSON: kept below as a string field
  }
  return JSON.stringify({ line, redriveError: reason });
}

export async function runRedrive(options: RedriveOptions): Promise<RedriveSummary> {
  const print = options.print ?? ((line: string) => console.log(line));
  const now = options.now ?? Date.now;
  const summary: RedriveSummary = { objects: 0, resent: { events: 0, identities: 0 }, moved: 0, left: {}, failed: 0 };
  const leave = (kind: keyof RedriveSummary['left'], n = 1) => (summary.left[kind] = (summary.left[kind] ?? 0) + n);

  print(`Redrive: ${options.objects.describe} to ${options.describeStreams}`);
  for (const { key } of await options.objects.list()) {
    summary.objects++;
    const stream = STREAM_OF[key.split('/')[1] ?? ''];
    if (!stream) {
      leave('not under errors/events/ or errors/identities/');
      print(`  LEFT  ${key}: not under errors/events/ or errors/identities/, so no stream to re-send it to`);
      continue;
    }
    const text = await options.objects.read(key);
    const lines = errorRecordTexts(text);
    const nowIso = new Date(now()).toISOString();
    const rows: object[] = [];
    const rest: string[] = [];
    const reasons = new Map<string, number>();
    for (const line of lines) {
      const out = redriveLine(line, stream, nowIso);
      if ('rows' in out) {
        rows.push(...out.rows);
        continue;
      }
      const reason = `${out.failure.kind}: ${out.failure.detail}`;
      leave(out.failure.kind);
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      rest.push(leftLine(line, reason));
    }
    try {
      if (rows.length) await options.streams[stream].put(rows);
    } catch (err) {
      summary.failed++;
      print(`  FAIL  ${key}: the ${stream} stream refused the rows (${(err as Error).message}); the object is left as it was, run again`);
      continue;
    }
    summary.resent[stream] += rows.length;
    const restText = rest.map((l) => l + '\n').join('');
    const why = [...reasons].map(([reason, n]) => `${n} × ${reason}`).join('; ');
    if (!rest.length) {
      await options.objects.settle(key);
      summary.moved++;
      print(`  DONE  ${key}: ${rows.length} ${RECORDS[stream]} re-sent, object moved to redriven/`);
    } else if (rows.length || restText !== lines.map((l) => l + '\n').join('')) {
      await options.objects.settle(key, restText);
      print(`  LEFT  ${key}: ${rows.length} ${RECORDS[stream]} re-sent, ${rest.length} line(s) left with their reason (${why}); the original is in redriven/`);
    } else {
      print(`  LEFT  ${key}: ${rest.length} line(s) left as they were (${why})`);
    }
  }

  const leftTotal = Object.values(summary.left).reduce((a, b) => a + (b ?? 0), 0);
  const kinds = Object.entries(summary.left)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  print(
    `Summary: ${summary.objects} object(s) read, ${summary.resent.events} event(s) and ${summary.resent.identities} identity record(s) re-sent, ` +
      `${summary.moved} object(s) moved to redriven/, ${leftTotal} line(s) left under errors/${kinds ? ` (${kinds})` : ''}` +
      `${summary.failed ? `, ${summary.failed} object(s) not re-sent (stream refused; run again)` : ''}.`,
  );
  if (summary.resent.events || summary.resent.identities)
    print('Readers count each re-sent event once (dedupe_key), so running the command again, or after an interrupted run, is harmless.');
  return summary;
}

/**
 * A raw-stream record that Firehose could not deliver to its partition, as Firehose writes it under
 * errors/ (lib/raw-streams.ts errorOutputPrefix), and which of its rows can be re-sent.
 *
 * The format is Firehose's error output: one JSON document per failed record, with the record itself
 * base64-encoded in `rawData` next to `errorCode` and `errorMessage` ("Handle data transformation
 * failures" and "Handling errors for data format conversion", Amazon Data Firehose developer guide;
 * docs/decisions/undelivered-records.md). The local Firehose stand-in writes the same documents, one per line.
 *
 * A re-send is the stored row again, unchanged but for an event's received_at: set to the re-send's
 * time, so it lands in a current landing hour (contract/landing.ts) where the incremental
 * results job reads it. Its dedupe_key is unchanged, so readers still count it once whatever copies exist.
 */

/** One line of an errors/ object: Firehose's error record (the fields a re-send needs; others are kept as they are). */
export interface UndeliveredRecord {
  attemptsMade?: number;
  arrivalTimestamp?: number;
  errorCode: string;
  errorMessage: string;
  attemptEndingTimestamp?: number;
  /** The record as put to the stream, base64. */
  rawData: string;
  [field: string]: unknown;
}

/** The raw streams a record can come from: the first key segment after errors/ (errors/events/…, errors/identities/…). */
export type UndeliveredStream = 'events' | 'identities';

/** Why a line of an errors/ object cannot be re-sent: the kind (reported with a count) and the detail. */
export interface RedriveFailure {
  kind: 'not an error record' | 'rawData is not base64 text' | 'not a JSON object' | 'missing partition or dedupe key';
  detail: string;
}

/** What a line of an errors/ object gives: the rows to re-send, or why none can be. */
export type RedriveLine = { rows: Array<Record<string, unknown>> } | { failure: RedriveFailure };

/** The fields each stream's rows need: the partition keys Firehose extracts (lib/raw-streams.ts) and, for events, the key readers count an event once by. */
export const REDRIVE_REQUIRED_FIELDS: Record<UndeliveredStream, readonly string[]> = {
  events: ['project_id', 'timestamp', 'received_at', 'dedupe_key'],
  identities: ['project_id', 'timestamp', 'id', 'canonical_id'],
};

/** The error record Firehose writes for one record it could not deliver (the local stand-in's too). */
export function undeliveredRecord(raw: string, errorCode: string, errorMessage: string, atMs: number): UndeliveredRecord {
  return {
    attemptsMade: 1,
    arrivalTimestamp: atMs,
    errorCode,
    errorMessage,
    attemptEndingTimestamp: atMs,
    rawData: Buffer.from(raw, 'utf8').toString('base64'),
  };
}

/**
 * The error records of an errors/ object's text, each as its JSON text. The guide calls each "a JSON
 * document" without saying what separates them, so records are read as a stream of JSON objects, one
 * after the other, with or without newlines between them; text outside any object (up to the end of its
 * line) is returned as a line of its own, which redriveLine reports as not an error record.
 */
export function errorRecordTexts(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    if (c !== '{') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out.push(text.slice(i, stop));
      i = stop;
      continue;
    }
    let depth = 0;
    let inString = false;
    let j = i;
    for (; j < text.length; j++) {
      const d = text[j]!;
      if (inString) {
        if (d === '\\') j++;
        else if (d === '"') inString = false;
      } else if (d === '"') inString = true;
      else if (d === '{') depth++;
      else if (d === '}' && --depth === 0) break;
    }
    out.push(text.slice(i, j + 1));
    i = j + 1;
  }
  return out;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The rows of one line of an errors/ object, ready to put to `stream` again, or why not. rawData may
 * hold one JSON object or several, one per line (a whole record that could not be de-aggregated).
 */
export function redriveLine(line: string, stream: UndeliveredStream, nowIso: string): RedriveLine {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { failure: { kind: 'not an error record', detail: 'the line is not JSON' } };
  }
  const rawData = (record as { rawData?: unknown } | null)?.rawData;
  if (typeof rawData !== 'string') return { failure: { kind: 'not an error record', detail: 'no rawData field' } };
  if (!BASE64.test(rawData) || rawData.length % 4 !== 0) return { failure: { kind: 'rawData is not base64 text', detail: 'rawData is not base64' } };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(rawData, 'base64'));
  } catch {
    return { failure: { kind: 'rawData is not base64 text', detail: 'rawData does not decode to UTF-8 text' } };
  }
  const rows: Array<Record<string, unknown>> = [];
  for (const part of text.split('\n')) {
    if (!part.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(part);
    } catch {
      return { failure: { kind: 'not a JSON object', detail: 'rawData holds text that is not JSON' } };
    }
    if (!row || typeof row !== 'object' || Array.isArray(row))
      return { failure: { kind: 'not a JSON object', detail: 'rawData holds JSON that is not an object' } };
    const missing = REDRIVE_REQUIRED_FIELDS[stream].filter((f) => {
      const value = (row as Record<string, unknown>)[f];
      return typeof value !== 'string' || value === '';
    });
    if (missing.length) return { failure: { kind: 'missing partition or dedupe key', detail: `no ${missing.join(', ')} (a non-empty string each)` } };
    rows.push(stream === 'events' ? { ...(row as Record<string, unknown>), received_at: nowIso } : (row as Record<string, unknown>));
  }
  if (!rows.length) return { failure: { kind: 'not a JSON object', detail: 'rawData is empty' } };
  return { rows };
}

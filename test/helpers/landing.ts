/**
 * Raw records as the local Firehose stand-in lands them (contract/landing.ts): NDJSON lines under
 * <data dir>/landing/<stream>/arrival_hour=<hour>/<file>.ndjson, the hour the records arrived. For
 * tests that seed a data directory without going through the API.
 */
import { appendFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbCompactionStore } from '../../lambdas/adapters/duckdb-compaction';
import { InProcessDuckDb, type LocalDuckDb } from '../../lambdas/adapters/duckdb-local';
import { landingHourDir } from '../../lambdas/adapters/duckdb-stream-views';
import type { StreamName } from '../../lambdas/contract/landing';
import { landingHour } from '../../lambdas/contract/landing';
import type { StoredEvent } from '../../lambdas/domain/event';
import { compactLanding, type StreamCompaction } from '../../lambdas/services/compact-landing';

/** Appends records to a landing hour's file (default: the hour of each event's received_at, as Firehose would). */
export function writeLanding(dataDir: string, stream: StreamName, records: object[], options: { hour?: string; file?: string } = {}): void {
  for (const record of records) {
    const received = (record as Partial<StoredEvent>).received_at;
    const hour = options.hour ?? landingHour(received ? Date.parse(received) : Date.now());
    const dir = landingHourDir(dataDir, stream, hour);
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, options.file ?? 'test.ndjson'), JSON.stringify(record) + '\n');
  }
}

/** Events into the events stream's landing hours. */
export const writeLandingEvents = (dataDir: string, events: StoredEvent[], options: { hour?: string; file?: string } = {}) =>
  writeLanding(dataDir, 'events', events, options);

/**
 * Runs the compaction job once at `nowMs` over every landing hour closed by then (no cap on the hours
 * of one run), and keeps the landing files (the results job's incremental path reads them): the
 * readers then read the curated Parquet partitions of those hours and the landing tail after them.
 */
export async function compactClosedHours(dataDir: string, duckdb: LocalDuckDb, nowMs: number, onPublish?: () => Promise<void>): Promise<StreamCompaction[]> {
  return compactLanding(new DuckDbCompactionStore(dataDir, duckdb, onPublish), {
    nowMs,
    closeAfterMs: 15 * 60_000,
    maxHours: 1_000_000,
    graceMs: 3_600_000,
    landingRetentionMs: Number.POSITIVE_INFINITY,
  });
}

/** How a test reads a data directory: from the landing files as written, or after compacting them all. */
export type ReadFrom = 'landing' | 'curated';

/**
 * A new data directory holding what `write` lands, every hour of it compacted when `read` is
 * 'curated' (the job run two hours after `lastMs`, the last arrival, with a DuckDB of its own).
 */
export async function landedDataDir(prefix: string, read: ReadFrom, write: (dataDir: string) => void, lastMs: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  write(dataDir);
  if (read === 'landing') return dataDir;
  const duckdb = new InProcessDuckDb();
  try {
    const [events] = await compactClosedHours(dataDir, duckdb, lastMs + 2 * 3_600_000);
    if (events?.compactedThrough !== landingHour(lastMs)) throw new Error(`compaction stopped at ${events?.compactedThrough}, before ${landingHour(lastMs)}`);
  } finally {
    await duckdb.close();
  }
  return dataDir;
}

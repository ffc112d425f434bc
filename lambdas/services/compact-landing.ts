/**
 * The compaction job (docs/decisions/columnar-events.md, "Compaction"): for each stream, the closed
 * landing hours after the state's (domain/compaction-window.ts) are taken into the curated partitions
 * they touch, in batches of at most 100 partitions (domain/partition-batches.ts), each partition
 * rewritten whole into a new generation and then pointed at it. Only once every batch is committed
 * does the state move and the views follow it; then generations superseded longer ago than the grace
 * and landing hours compacted longer ago than the landing retention are deleted.
 *
 * Crash-safe at every step: a run that stops before the state moved leaves the hours in the views'
 * tail (their events also in the partitions it committed: the views keep each event once), and the
 * next run compacts them again, which changes nothing for the events already curated. A generation is
 * put on the retiring list before it is written, with the one it replaces, so what a run wrote but
 * never committed is deleted too; a retiring generation is deleted only if its partition does not
 * point at it when it is due. Landing data is deleted
 * only when the state says its hour is curated. Runs never overlap (the schedule's single concurrency,
 * the local scheduler).
 */
import { randomUUID } from 'node:crypto';
import { addHours, landingHourStart, STREAM_NAMES, type StreamName } from '../domain/landing-hour';
import { compactionWindow } from '../domain/compaction-window';
import { partitionBatches, type CuratedPartition } from '../domain/partition-batches';
import { newGeneration } from '../domain/results-base';
import { partitionKey, type CompactionState, type CompactionStore, type RetiringGeneration } from '../ports';

export interface CompactionOptions {
  nowMs: number;
  /** How long after a landing hour ends an object may still land in it (domain/compaction-window.ts). */
  closeAfterMs: number;
  /** Landing hours with objects one run takes at most, per stream. */
  maxHours: number;
  /** How long a superseded generation stays readable (the longest query reading it). */
  graceMs: number;
  /** How long a compacted landing hour is kept after it ends (the results job reads new events from landing). */
  landingRetentionMs: number;
  /** Stops taking new batches after this time (a run's own deadline); the next run continues. */
  deadlineMs?: number;
}

export interface StreamCompaction {
  stream: StreamName;
  hours: number;
  partitions: number;
  /** Rows written; null when the engine does not say (Athena's UNLOAD). */
  rows: number | null;
  files: number;
  bytes: number;
  compactedThrough: string | undefined;
  generationsDeleted: number;
  landingHoursDeleted: number;
  /** Whether the run stopped at its deadline before committing every batch. */
  stoppedEarly: boolean;
}

export async function compactLanding(store: CompactionStore, options: CompactionOptions): Promise<StreamCompaction[]> {
  const states = new Map<StreamName, CompactionState>();
  const summaries: StreamCompaction[] = [];
  let moved = false;
  for (const stream of STREAM_NAMES) {
    const { summary, state, stateMoved } = await compactStream(store, stream, options);
    states.set(stream, state);
    summaries.push(summary);
    moved ||= stateMoved;
  }
  if (moved) {
    await store.publishViews(Object.fromEntries(STREAM_NAMES.map((s) => [s, states.get(s)!.compactedThrough])) as Record<StreamName, string | undefined>);
  }
  for (const summary of summaries) {
    const deleted = await retire(store, summary.stream, states.get(summary.stream)!, options);
    summary.generationsDeleted = deleted.generations;
    summary.landingHoursDeleted = deleted.landingHours;
  }
  return summaries;
}

async function compactStream(store: CompactionStore, stream: StreamName, options: CompactionOptions) {
  // A run killed while writing may have left a generation's files in staging (a person's rows among
  // them): gone at the next run's start, whether or not it has anything to write.
  await store.clearStaging(stream);
  let state = await store.readState(stream);
  const present = await store.landingHours(stream);
  const window = compactionWindow({
    present,
    compactedThrough: state.compactedThrough,
    nowMs: options.nowMs,
    closeAfterMs: options.closeAfterMs,
    maxHours: options.maxHours,
  });
  const summary: StreamCompaction = {
    stream,
    hours: window.hours.length,
    partitions: 0,
    rows: 0,
    files: 0,
    bytes: 0,
    compactedThrough: state.compactedThrough,
    generationsDeleted: 0,
    landingHoursDeleted: 0,
    stoppedEarly: false,
  };
  if (window.through === undefined) return { summary, state, stateMoved: false };

  const now = new Date(options.nowMs).toISOString();
  const after = new Date(options.nowMs + options.graceMs).toISOString();
  if (window.hours.length > 0) {
    const generation = newGeneration(now, randomUUID().replaceAll('-', '').slice(0, 12));
    const batches = partitionBatches(await store.partitionsOf(stream, window.hours), store.maxPartitionsPerWrite);
    for (const batch of batches) {
      if (options.deadlineMs !== undefined && Date.now() >= options.deadlineMs) {
        summary.stoppedEarly = true;
        return { summary, state, stateMoved: false };
      }
      const replaced = await replacePartitions(store, stream, state, batch, generation, after, () =>
        store.writeGeneration(stream, batch, window.hours, generation),
      );
      state = replaced.state;
      const written = replaced.written;
      summary.partitions += batch.length;
      summary.rows = summary.rows === null || written.rows === undefined ? null : summary.rows + written.rows;
      summary.files += written.files;
      summary.bytes += written.bytes;
    }
  }
  state = { ...state, compactedThrough: window.through };
  await store.writeState(stream, state);
  summary.compactedThrough = window.through;
  return { summary, state, stateMoved: true };
}

/**
 * Writes a new generation of a batch of partitions and points them at it. Both generations of each
 * partition, the one it points at and the one written, go on the retiring list before the write:
 * whichever the partition does not point at when they are due (`after`) is deleted, so nothing a
 * stopped run wrote or replaced is left behind. Compaction and a person's deletion
 * (services/erase-people.ts) replace partitions this way.
 */
export async function replacePartitions<T>(
  store: CompactionStore,
  stream: StreamName,
  state: CompactionState,
  batch: readonly CuratedPartition[],
  generation: string,
  after: string,
  write: () => Promise<T>,
): Promise<{ state: CompactionState; written: T }> {
  const current = await store.currentGenerations(stream, batch);
  const previous = batch.flatMap((p) => {
    const g = current.get(partitionKey(p));
    return g === undefined ? [] : [{ ...p, generation: g, after }];
  });
  const next = withRetiring(state, [...previous, ...batch.map((p) => ({ ...p, generation, after }))]);
  await store.writeState(stream, next);
  const written = await write();
  await store.commit(stream, batch, generation);
  return { state: next, written };
}

/** A retiring generation's key: its partition's and its name. */
const retiringKey = (g: RetiringGeneration) => `${partitionKey(g)}/${g.generation}`;

/** The state with these generations on its retiring list (a generation listed twice keeps the later time). */
export function withRetiring(state: CompactionState, add: RetiringGeneration[]): CompactionState {
  const byKey = new Map(state.retiring.map((g) => [retiringKey(g), g]));
  for (const g of add) byKey.set(retiringKey(g), g);
  return { ...state, retiring: [...byKey.values()] };
}

async function retire(store: CompactionStore, stream: StreamName, state: CompactionState, options: CompactionOptions) {
  const now = new Date(options.nowMs).toISOString();
  const due = state.retiring.filter((g) => g.after <= now);
  let generations = 0;
  if (due.length > 0) {
    const current = await store.currentGenerations(stream, due);
    for (const g of due) {
      if (current.get(partitionKey(g)) === g.generation) continue;
      await store.deleteGeneration(stream, g);
      generations++;
    }
    const dueKeys = new Set(due.map(retiringKey));
    await store.writeState(stream, { ...state, retiring: state.retiring.filter((g) => !dueKeys.has(retiringKey(g))) });
  }
  let landingHours = 0;
  if (state.compactedThrough !== undefined) {
    const through = state.compactedThrough;
    const old = (await store.landingHours(stream))
      .filter((h) => h <= through && landingHourStart(addHours(h, 1)) + options.landingRetentionMs <= options.nowMs)
      .sort();
    for (const hour of old) {
      await store.deleteLandingHour(stream, hour);
      landingHours++;
    }
  }
  return { generations, landingHours };
}

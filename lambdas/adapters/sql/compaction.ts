/**
 * The texts of the curated layout (docs/decisions/columnar-events.md): the compaction statements and
 * the readers' views, rendered for Athena (lambdas/adapters/athena-compaction.ts, the views the
 * compaction job and the deploy create) and DuckDB (lambdas/adapters/duckdb-compaction.ts,
 * lambdas/adapters/duckdb-stream-views.ts) from the same SQL files. Pure.
 */
import type { StreamName } from '../../contract/landing';
import { partitionKey, type CuratedPartition } from '../../domain/partition-batches';
import COMPACT_EVENTS_SQL from './compact-events.sql';
import COMPACT_IDENTITIES_SQL from './compact-identities.sql';
import COMPACT_PARTITIONS_SQL from './compact-partitions.sql';
import EVENTS_BY_ARRIVAL_VIEW_SQL from './events-by-arrival-view.sql';
import EVENTS_TAIL_VIEW_SQL from './events-tail-view.sql';
import EVENTS_VIEW_SQL from './events-view.sql';
import IDENTITIES_VIEW_SQL from './identities-view.sql';
import { expandIncludes } from './include';
import { renderSql } from './render';

/** The tables a stream's texts read: its landing table and its curated table. */
export interface StreamTables {
  landing: string;
  curated: string;
}

const COMPACT: Record<StreamName, string> = { events: expandIncludes(COMPACT_EVENTS_SQL), identities: expandIncludes(COMPACT_IDENTITIES_SQL) };
const VIEW: Record<StreamName, string> = { events: expandIncludes(EVENTS_VIEW_SQL), identities: expandIncludes(IDENTITIES_VIEW_SQL) };
const EVENTS_TAIL_VIEW = expandIncludes(EVENTS_TAIL_VIEW_SQL);

/**
 * The compaction state's hour as the views' bound: before the first compaction every landing hour
 * is in the tail (no hour is earlier than this one).
 */
export const NOTHING_COMPACTED = '0000-00-00-00';

/** The partitions (project_id, dt) landing hours touch. */
export function renderCompactPartitions(hours: readonly string[], tables: Pick<StreamTables, 'landing'>): string {
  return renderSql(COMPACT_PARTITIONS_SQL, { hours }, { landing: tables.landing });
}

/** The rows of a batch of partitions after taking in landing hours `hours` (columns, then project_id and dt). */
export function renderCompact(stream: StreamName, batch: readonly CuratedPartition[], hours: readonly string[], tables: StreamTables): string {
  if (batch.length === 0) throw new RangeError('a compaction batch names at least one partition');
  const distinct = (values: string[]) => [...new Set(values)].sort();
  return renderSql(
    COMPACT[stream],
    {
      hours,
      project_ids: distinct(batch.map((p) => p.projectId)),
      dts: distinct(batch.map((p) => p.dt)),
      partitions: batch.map(partitionKey),
    },
    { curated: tables.curated, landing: tables.landing },
  );
}

/** The readers' view of a stream: curated plus the landing hours after `compactedThrough`. */
export function renderStreamView(stream: StreamName, compactedThrough: string | undefined, tables: StreamTables): string {
  return renderSql(VIEW[stream], { compacted_through: compactedThrough ?? NOTHING_COMPACTED }, { curated: tables.curated, landing: tables.landing });
}

/** The events view's landing tail alone (events-tail-view.sql): the landing hours after `compactedThrough`, none curated. */
export function renderEventsTailView(compactedThrough: string | undefined, tables: StreamTables): string {
  return renderSql(EVENTS_TAIL_VIEW, { compacted_through: compactedThrough ?? NOTHING_COMPACTED }, { curated: tables.curated, landing: tables.landing });
}

/** The results job's view of the landing events, by arrival hour. */
export function renderEventsByArrivalView(tables: Pick<StreamTables, 'landing'>): string {
  return renderSql(expandIncludes(EVENTS_BY_ARRIVAL_VIEW_SQL), {}, { landing: tables.landing });
}

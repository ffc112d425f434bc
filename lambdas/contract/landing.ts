/**
 * Where the raw streams land and where compaction curates them (docs/decisions/columnar-events.md),
 * named once for the Lambdas, the local stand-ins and the CDK app. Plain data and pure helpers.
 *
 *   landing/<stream>/arrival_hour=<yyyy-MM-dd-HH>/<object>
 *       What Firehose writes, keyed only by the UTC hour the oldest record of the object arrived
 *       (Firehose's `!{timestamp:…}` namespace): no record-dependent key, so no partition limit.
 *       GZIP NDJSON on AWS (.json.gz), NDJSON locally (.ndjson). Every project in one object.
 *   curated/<stream>/project_id=<id>/dt=<yyyy-MM-dd>/generation=<g>/<file>.parquet
 *       Written by the compaction job from closed landing hours: Parquet (ZSTD), each event once,
 *       sorted by event name then time. A partition (project, day) is read at the generation its catalog
 *       entry points at: on AWS the Glue partition's location, locally the symlink
 *       catalog/<table>/project_id=<id>/dt=<day> (CURATED_CATALOG_DIR). A reader sees one
 *       generation or the next, never part of one.
 *   curated/_compaction/<stream>.json
 *       The compaction state: the last landing hour compacted (every hour up to it is in curated/),
 *       and the superseded generations waiting to be deleted.
 *
 * The tables and views over them: landing_<stream> (arrival_hour partitions), curated_<stream>
 * (project_id, dt partitions) and, for readers, the views <stream> (curated plus the landing hours
 * after the compaction state's, each event once) and events_by_arrival (landing events with the
 * columns the results job reads).
 */

import type { StreamName } from '../domain/landing-hour';

export { addHours, isLandingHour, landingHour, landingHourStart, STREAM_NAMES, type StreamName } from '../domain/landing-hour';

export const LANDING_PREFIX = 'landing/';
export const CURATED_PREFIX = 'curated/';
/** People's export files (docs/privacy.md "Access requests"): exports/project_id=<id>/<export id>.ndjson, kept EXPORT_FILE_DAYS. */
export const EXPORTS_PREFIX = 'exports/';
export const exportFileKey = (projectId: string, exportId: string) => `${EXPORTS_PREFIX}project_id=${projectId}/${exportId}.ndjson`;
export const COMPACTION_STATE_PREFIX = `${CURATED_PREFIX}_compaction/`;
/** The local stand-in for the Glue catalog's curated partitions: a directory of symlinks. */
export const CURATED_CATALOG_DIR = 'catalog';

/** The landing partition column and key segment: the UTC hour of arrival. */
export const ARRIVAL_HOUR = 'arrival_hour';
/** Its format: Java DateTimeFormatter (Firehose's prefix namespace, Athena's projection) and landingHour below. */
export const ARRIVAL_HOUR_FORMAT = 'yyyy-MM-dd-HH';
/** The curated partitions' generation key segment. */
export const GENERATION = 'generation';

/** The Glue tables and views, by stream. */
export const landingTable = (stream: StreamName) => `landing_${stream}`;
export const curatedTable = (stream: StreamName) => `curated_${stream}`;
/**
 * The columns a curated table holds besides its stream's record fields, by stream: for events,
 * timestamp_minute, the event's UTC minute (YYYY-MM-DDTHH:MM, the first 16 characters of its
 * timestamp: rules/timestamp-minute.sql), which compaction writes so that a query needing only the
 * local hour or day of an event (a trend) reads it instead of the timestamp: sorted by name then time,
 * a day's minutes take 0.4 bytes an event in Parquet where the timestamp takes 3
 * (docs/decisions/columnar-events.md, "timestamp_minute"). Added after the record's fields, before
 * the partition columns. Not in the events view (the analysts' columns are the record's).
 */
export const CURATED_ONLY_COLUMNS: Record<StreamName, readonly string[]> = { events: ['timestamp_minute'], identities: [] };

/** The readers' view of a stream: curated plus the landing tail. */
export const streamView = (stream: StreamName) => stream;
/** The events view's landing tail alone (events = curated_events UNION ALL events_tail): what insights read next to the curated table. */
export const EVENTS_TAIL_VIEW = 'events_tail';
/** The results job's view of landing events by arrival hour. */
export const EVENTS_BY_ARRIVAL_VIEW = 'events_by_arrival';

export const landingPrefix = (stream: StreamName) => `${LANDING_PREFIX}${stream}/`;
export const curatedPrefix = (stream: StreamName) => `${CURATED_PREFIX}${stream}/`;
export const compactionStateKey = (stream: StreamName) => `${COMPACTION_STATE_PREFIX}${stream}.json`;
/**
 * Where a generation is written before each partition's files move into place (both paths: DuckDB's
 * COPY … PARTITION_BY, Athena's UNLOAD … partitioned_by write project_id=<id>/dt=<day>/ folders under
 * it). Not a generation: no catalog entry points here, and every run clears what a killed run left
 * as it starts (CompactionStore.clearStaging).
 */
export const curatedStagingPrefix = (stream: StreamName) => `${curatedPrefix(stream)}_staging/`;
/**
 * ZSTD's level for curated files on both paths (DuckDB's COMPRESSION_LEVEL, Athena UNLOAD's
 * compression_level, 1 to 22 in Athena engine version 3): compaction writes each event once and
 * queries read it many times, so a slow, small encoding pays (timestamps 4.7 -> 2.9 bytes an event at
 * level 19, measured in docs/decisions/columnar-events.md, "Sort order and compression").
 */
export const CURATED_ZSTD_LEVEL = 19;

/** The prefix of one landing hour's objects. */
export const landingHourPrefix = (stream: StreamName, hour: string) => `${landingPrefix(stream)}${ARRIVAL_HOUR}=${hour}/`;
/** The prefix of one curated partition's generation. */
export const generationPrefix = (stream: StreamName, projectId: string, dt: string, generation: string) =>
  `${curatedPrefix(stream)}project_id=${projectId}/dt=${dt}/${GENERATION}=${generation}/`;

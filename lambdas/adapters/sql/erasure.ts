/**
 * The texts of a person's deletion in the curated partitions (docs/decisions/erasure.md): which
 * partitions of a project hold the person's rows, and a batch of partitions without them. Rendered
 * for DuckDB locally (lambdas/adapters/duckdb-compaction.ts) and for Athena from the same SQL files.
 * Pure.
 */
import type { StreamName } from '../../contract/landing';
import { partitionKey, type CuratedPartition } from '../../domain/partition-batches';
import ERASE_EVENTS_PARTITIONS_SQL from './erase-events-partitions.sql';
import ERASE_EVENTS_ROWS_SQL from './erase-events-rows.sql';
import ERASE_IDENTITIES_PARTITIONS_SQL from './erase-identities-partitions.sql';
import ERASE_IDENTITIES_ROWS_SQL from './erase-identities-rows.sql';
import PERSON_LINKS_SQL from './person-links.sql';
import { expandIncludes } from './include';
import { renderSql } from './render';

const PARTITIONS: Record<StreamName, string> = {
  events: expandIncludes(ERASE_EVENTS_PARTITIONS_SQL),
  identities: expandIncludes(ERASE_IDENTITIES_PARTITIONS_SQL),
};
const ROWS: Record<StreamName, string> = { events: expandIncludes(ERASE_EVENTS_ROWS_SQL), identities: expandIncludes(ERASE_IDENTITIES_ROWS_SQL) };

/** A person: its IDs (at least one) and the request time its rows were received through (ISO 8601). */
export interface PersonRows {
  ids: readonly string[];
  through: string;
}

function checked(person: PersonRows): PersonRows {
  if (person.ids.length === 0) throw new RangeError('a person has at least one ID');
  return person;
}

/** The curated partitions (project_id, dt) of the project holding the person's rows. */
export function renderPersonPartitions(stream: StreamName, projectId: string, person: PersonRows, curated: string): string {
  const { ids, through } = checked(person);
  return renderSql(PARTITIONS[stream], { project_id: projectId, ids, through }, { curated });
}

/** The rows of a batch of curated partitions without the person's (columns, then project_id and dt). */
export function renderWithoutPerson(stream: StreamName, batch: readonly CuratedPartition[], person: PersonRows, curated: string): string {
  if (batch.length === 0) throw new RangeError('a batch names at least one partition');
  const { ids, through } = checked(person);
  const distinct = (values: string[]) => [...new Set(values)].sort();
  return renderSql(
    ROWS[stream],
    {
      project_ids: distinct(batch.map((p) => p.projectId)),
      dts: distinct(batch.map((p) => p.dt)),
      partitions: batch.map(partitionKey),
      ids,
      through,
    },
    { curated },
  );
}

/** The identity links (curated and landing) naming any of the IDs: one round of finding a person. */
export function renderPersonLinks(projectId: string, ids: readonly string[], tables: { curated: string; landing: string }): string {
  if (ids.length === 0) throw new RangeError('a person has at least one ID');
  return renderSql(PERSON_LINKS_SQL, { project_id: projectId, ids }, tables);
}

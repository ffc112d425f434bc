/**
 * The texts of a person's export (docs/decisions/erasure.md "Export"): their events and identity links
 * over the readers' views, rendered for DuckDB locally (adapters/duckdb-person-rows.ts) and for Athena
 * from the same SQL files. Pure.
 */
import type { StreamName } from '../../contract/landing';
import EXPORT_EVENTS_SQL from './export-events.sql';
import EXPORT_IDENTITIES_SQL from './export-identities.sql';
import type { PersonRows } from './erasure';
import { expandIncludes } from './include';
import { renderSql } from './render';

const TEXTS: Record<StreamName, string> = { events: expandIncludes(EXPORT_EVENTS_SQL), identities: expandIncludes(EXPORT_IDENTITIES_SQL) };

/** The person's rows of one stream's readers' view (`view`: events or identities). */
export function renderPersonExport(stream: StreamName, projectId: string, person: PersonRows, view: string): string {
  if (person.ids.length === 0) throw new RangeError('a person has at least one ID');
  return renderSql(TEXTS[stream], { project_id: projectId, ids: person.ids, through: person.through }, { [stream]: view });
}

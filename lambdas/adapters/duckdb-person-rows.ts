/**
 * A person's rows for their export locally (docs/decisions/erasure.md "Export"): DuckDB over the
 * project's readers' views (duckdb-stream-views.ts: curated partitions plus the landing tail, each
 * event once), with the same texts Athena runs (sql/person-export.ts).
 */
import { streamView, type StreamName } from '../contract/landing';
import type { PersonRecordsFound } from '../domain/person-export';
import type { PersonStreamRows } from '../ports';
import type { LocalDuckDb } from './duckdb-local';
import { hasRows, streamViews } from './duckdb-stream-views';
import { renderPersonExport } from './sql/person-export';

export class DuckDbPersonRows implements PersonStreamRows {
  constructor(
    private readonly dataDir: string,
    private readonly duckdb: LocalDuckDb,
  ) {}

  async rowsOf(
    projectId: string,
    { ids, through }: { ids: readonly string[]; through: string },
  ): Promise<Pick<PersonRecordsFound, 'events' | 'identityLinks'>> {
    const read = async (stream: StreamName) => {
      const views = await streamViews(this.dataDir, stream, { projectId });
      if (!hasRows(views)) return [];
      return this.duckdb.use(views, (session) => session.rows(renderPersonExport(stream, projectId, { ids, through }, streamView(stream))));
    };
    return { events: await read('events'), identityLinks: await read('identities') };
  }
}

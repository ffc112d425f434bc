/**
 * People's exports (docs/decisions/erasure.md "Export"): each unfinished export is carried out whole,
 * in the compaction job's run after the deletions (handlers/compact-landing.ts): runs never overlap, so
 * an export never races a deletion of the same person (a deletion removes the exports it finds, before
 * they run or after). The person is found as a deletion finds it (services/erase-people.ts findPerson);
 * their rows are those received through the export's request. Resumable: the file is written whole
 * under the export's ID, then the export saved done; a run stopped between the two writes it again.
 */
import { exportFile, type PersonExport } from '../domain/person-export';
import type { ExportFiles, ExportStore, PersonFiles, PersonRecords, PersonStreamRows } from '../ports';
import { findPerson } from './erase-people';

export interface ExportDeps extends Pick<PersonRecords, 'identities' | 'assignments' | 'experiments'> {
  exports: ExportStore;
  exportFiles: ExportFiles;
  rows: PersonStreamRows;
  /** The identity-stream links (curated and landing), to find the person as a deletion does. */
  files: Pick<PersonFiles, 'linksOf'>;
}

export interface ExportRun {
  id: string;
  project_id: string;
  done: boolean;
}

export async function runExports(deps: ExportDeps, options: { clock: () => number; deadlineMs?: number }): Promise<ExportRun[]> {
  const runs: ExportRun[] = [];
  for (const request of await deps.exports.unfinished()) {
    if (options.deadlineMs !== undefined && Date.now() >= options.deadlineMs) break;
    const run = { id: request.id, project_id: request.project_id, done: false };
    runs.push(run);
    await deps.exports.save({ ...request, state: 'running' });
    await deps.exports.save(await exportOne(deps, request, options.clock));
    run.done = true;
  }
  return runs;
}

async function exportOne(deps: ExportDeps, request: PersonExport, clock: () => number): Promise<PersonExport> {
  const projectId = request.project_id;
  const ids = await findPerson(deps, projectId, request.user_id);
  const { events, identityLinks } = await deps.rows.rowsOf(projectId, { ids, through: request.requested_at });
  const experiments = (await deps.experiments.list(projectId)).map((e) => e.id);
  const { body, counts } = exportFile({
    events,
    identityLinks,
    profiles: await deps.identities.profilesOf(projectId, ids),
    assignments: await deps.assignments.of(projectId, experiments, ids),
  });
  await deps.exportFiles.put(projectId, request.id, body);
  return { ...request, state: 'done', ids, counts, finished_at: new Date(clock()).toISOString() };
}

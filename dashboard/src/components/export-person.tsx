/**
 * "Export" on the person page (admin role): asks for an export of the person (every event of their
 * IDs, their identity links, profile and assignments, as NDJSON), shows its state, read again every
 * few seconds while it is pending or running, and once done the counts and the API's download link
 * (signed for a short time when the export is read). The person's newest export made before is shown
 * when the page opens.
 */
import { useState } from 'preact/hooks';
import { EXPORT_FILE_DAYS } from '../../../lambdas/domain/person-export';
import type { ExportView, User } from '../admin-types';
import type { ApiClient } from '../api';
import { formatTime } from '../format-time';
import { exportCounts } from '../privacy-words';
import { errorText, useAsync, useRefreshWhile } from './async-view';
import { StatusBadge } from './status-badge';

/** Exports read to find the person's newest one (the API's page size; older ones are not looked for). */
const EXPORTS_READ = 100;

export function ExportPerson({ api, projectPath, user }: { api: ApiClient; projectPath: string; user: User }) {
  const ids = new Set([user.user_id, ...user.ids]);
  const base = `/admin/v1${projectPath}/exports`;
  const [asked, setAsked] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The export shown: the one just asked for, else the person's newest one.
  const shown = useAsync(async (): Promise<ExportView | null> => {
    if (asked) return (await api.get<{ export: ExportView }>(`${base}/${encodeURIComponent(asked)}`)).export;
    const { exports } = await api.get<{ exports: ExportView[] }>(`${base}?limit=${EXPORTS_READ}`);
    return exports.find((e) => ids.has(e.user_id) || (e.ids ?? []).some((id) => ids.has(id))) ?? null;
  }, [api, base, asked]);
  const current = shown.data ?? null;
  useRefreshWhile(shown.reload, current !== null && current.state !== 'done');
  const request = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api.post<{ export: ExportView }>(base, { user_id: user.user_id });
      shown.set(answer.export);
      setAsked(answer.export.id);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const unfinished = current !== null && current.state !== 'done';
  return (
    <div class="privacy-request">
      <button type="button" class="secondary" disabled={busy || unfinished} onClick={() => void request()}>
        Export
      </button>
      <p class="hint">
        A file (NDJSON) of every event of this person’s IDs, their identity links, profile and experiment assignments, for an access request. The compaction
        job’s next run makes it; it is kept {EXPORT_FILE_DAYS} days.
      </p>
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {shown.error !== null && (
        <p class="error" role="alert">
          {shown.error}
        </p>
      )}
      {current && (
        <p class="export-state" role="status">
          Export asked for {formatTime(current.requested_at)}: <StatusBadge status={current.state} />{' '}
          {current.state !== 'done' ? (
            'Waiting for the compaction job’s run. This updates by itself.'
          ) : (
            <>
              {current.counts && `${exportCounts(current.counts)}. `}
              {current.download_url && (
                <>
                  <a href={current.download_url} download>
                    Download the export (NDJSON)
                  </a>{' '}
                  {current.download_expires_at && (
                    <span class="muted">(the link works until {formatTime(current.download_expires_at)}; reload the page for a new one)</span>
                  )}
                </>
              )}
            </>
          )}
        </p>
      )}
    </div>
  );
}

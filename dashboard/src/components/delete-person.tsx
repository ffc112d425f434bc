/**
 * "Delete this person" on the person page (admin role): a confirmation that names what goes (the
 * person's IDs, as text, and every store a deletion empties), an optional reason, "Suppress future
 * events", and the person's ID typed again before the button enables. Once the API took the request
 * (202), the page links to the deletion's own page, where its progress and receipt show.
 */
import { useId, useState } from 'preact/hooks';
import { MAX_DELETION_REASON } from '../../../lambdas/domain/deletion';
import type { DeletionView, User } from '../admin-types';
import type { ApiClient } from '../api';
import { DELETED_STORES, SUPPRESS_HINT } from '../privacy-words';
import { formatTime } from '../format-time';
import { ConfirmDialog } from './confirm-dialog';
import { errorText } from './async-view';
import { Field } from './field';

export function DeletePerson({ api, projectPath, user, label }: { api: ApiClient; projectPath: string; user: User; label: string }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [suppress, setSuppress] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [requested, setRequested] = useState<DeletionView | null>(null);
  const typedId = useId();
  const ids = [...new Set([user.user_id, ...user.ids])];
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const body = { user_id: user.user_id, ...(reason.trim() ? { reason: reason.trim() } : {}), suppress };
      const { deletion } = await api.post<{ deletion: DeletionView }>(`/admin/v1${projectPath}/deletions`, body);
      setRequested(deletion);
      setOpen(false);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <div class="privacy-request">
        <button
          type="button"
          class="danger"
          disabled={requested !== null}
          onClick={() => {
            setTyped('');
            setError(null);
            setOpen(true);
          }}
        >
          Delete this person
        </button>
        <p class="hint">Removes everything Tally holds of this person, under every ID of theirs, within 24 hours. It asks first.</p>
        {requested && (
          <p class="notice" role="status">
            Deletion requested: this person’s data is removed by the job’s next run, and every copy is gone by {formatTime(requested.due_by)}.{' '}
            <a href={`#${projectPath}/deletions/${encodeURIComponent(requested.id)}`}>Follow the deletion and its receipt</a>.
          </p>
        )}
      </div>
      <ConfirmDialog
        open={open}
        title="Delete this person?"
        confirmLabel="Delete this person"
        busy={busy}
        confirmDisabled={typed !== user.user_id}
        wide
        error={error}
        onConfirm={() => void submit()}
        onCancel={() => setOpen(false)}
      >
        <p>
          Everything Tally holds of <strong class="wrap-anywhere">{label}</strong> is removed for good, under each of these IDs and any other ID linked to them
          through <code>$identify</code>, now or earlier:
        </p>
        <ul class="plain mono person-ids" tabIndex={0} aria-label="The person’s IDs">
          {ids.map((id) => (
            <li key={id}>{id}</li>
          ))}
        </ul>
        <p>What goes:</p>
        <ul>
          {DELETED_STORES.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
        <p>Every copy is physically gone within 24 hours; the deletion’s receipt says what went from where, and when. This cannot be undone.</p>
        <Field
          id="deletion-reason"
          label="Reason (optional)"
          hint="For your records, shown on the Deletions page, e.g. the request’s ticket. Not the person’s data."
        >
          <textarea rows={2} maxLength={MAX_DELETION_REASON} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <label class="check">
            <input type="checkbox" checked={suppress} onChange={(e) => setSuppress(e.currentTarget.checked)} aria-describedby="deletion-suppress-hint" />{' '}
            Suppress future events
          </label>
          <p class="hint" id="deletion-suppress-hint">
            {SUPPRESS_HINT}
          </p>
        </div>
        <div class="field">
          <label for={typedId}>Type the person’s ID to confirm</label>
          <p class="hint mono" id={`${typedId}-id`}>
            {user.user_id}
          </p>
          <input
            id={typedId}
            type="text"
            autoComplete="off"
            spellcheck={false}
            value={typed}
            aria-describedby={`${typedId}-id`}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </div>
      </ConfirmDialog>
    </>
  );
}

/**
 * A page's heading that can be renamed in place: the name as the h1 and **Rename**, which opens a
 * field and **Save name**; the API's message for the name is shown beside the field. Without
 * `onRename` (a role that may not rename) it is the heading alone.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { errorText } from './async-view';
import { Field } from './field';

export function RenamableHeading({ name, kicker, onRename }: { name: string; kicker?: string; onRename?: (name: string) => Promise<void> }) {
  const [renaming, setRenaming] = useState(false);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  async function rename(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onRename!(draft);
      setRenaming(false);
    } catch (err) {
      setError(err instanceof ApiError ? (err.forField('name') ?? err.message) : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="saved-insight-title">
      {kicker && <p class="muted kicker">{kicker}</p>}
      <h1>{name}</h1>
      {!onRename ? null : renaming ? (
        <form class="inline-form" onSubmit={(e) => void rename(e)} noValidate>
          <Field id="rename-name" label="New name" error={error}>
            <input type="text" autoComplete="off" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={busy}>
            Save name
          </button>
          <button type="button" class="secondary" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setDraft(name);
            setError(undefined);
            setRenaming(true);
          }}
        >
          Rename
        </button>
      )}
    </div>
  );
}

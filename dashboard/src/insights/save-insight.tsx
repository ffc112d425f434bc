/** "Save this insight": a name, then POST .../saved-insights with the definition that ran. */
import { useState } from 'preact/hooks';
import { ApiError, type ApiClient } from '../api';
import { errorText } from '../components/async-view';
import { Field } from '../components/field';
import { savedInsightsPath, type SavedInsight } from './saved-insights';

export function SaveInsight({ api, projectId, kind, definition }: { api: ApiClient; projectId: string; kind: string; definition: unknown }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState<SavedInsight | undefined>(undefined);

  async function save(e: Event) {
    e.preventDefault();
    if (name.trim() === '') {
      setError('Give the insight a name, for example “Signups by platform”.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      setSaved(await api.post<SavedInsight>(savedInsightsPath(projectId), { name, kind, definition }));
    } catch (err) {
      setError(err instanceof ApiError ? (err.forField('name') ?? err.message) : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="inline-form save-insight" onSubmit={(e) => void save(e)} noValidate>
      <Field id="save-insight-name" label="Save as" error={error}>
        <input type="text" autoComplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="secondary" disabled={busy}>
        Save insight
      </button>
      <p role="status" class="status-line">
        {saved ? `Saved as “${saved.name}”: it is listed under Insights.` : ''}
      </p>
    </form>
  );
}

/**
 * Keys of a project: "Create key" (label, plan, rate limit, allowed origins, allowed bundle IDs; each field
 * shows the API's own message), the new key shown once, the list, and "Revoke" with a confirmation.
 */
import { ReadOnlyNote } from '../components/read-only-note';
import { useCan } from '../role';
import { useRef, useState } from 'preact/hooks';
import { keyDraftProblems, type KeyDraft, type KeyField } from '../../../lambdas/domain/key-fields';
import type { ApiKey, CreatedKey } from '../admin-types';
import { ApiError } from '../api';
import { AsyncView, useAsync } from '../components/async-view';
import { ListTable, newestFirst } from '../components/list-table';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { NewKeyPanel } from '../components/new-key';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';
import { pathOf } from '../router';

const FIELDS = ['label', 'plan', 'rate_limit_per_minute', 'allowed_origins', 'allowed_bundle_ids'];

/** One entry a line; blank lines ignored. */
const lines = (value: FormDataEntryValue | null) =>
  String(value ?? '')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

/** The form as typed, for the checks before sending. */
function keyDraft(form: FormData): KeyDraft {
  return {
    label: String(form.get('label') ?? ''),
    rateLimit: String(form.get('rate_limit_per_minute') ?? ''),
    origins: lines(form.get('allowed_origins')),
    bundleIds: lines(form.get('allowed_bundle_ids')),
  };
}

/** The create body from a checked draft: only what was filled in, so the API's defaults apply otherwise. */
function keyBody(form: FormData, draft: KeyDraft): Record<string, unknown> {
  const body: Record<string, unknown> = { plan: form.get('plan') };
  if (draft.label?.trim()) body.label = draft.label.trim();
  if (draft.rateLimit.trim() !== '') body.rate_limit_per_minute = Number(draft.rateLimit.trim());
  if (draft.origins.length) body.allowed_origins = draft.origins;
  if (draft.bundleIds.length) body.allowed_bundle_ids = draft.bundleIds;
  return body;
}

export function KeysPage({ api, params }: PageProps) {
  const base = `/admin/v1${pathOf('projects', params.projectId!)}/keys`;
  const list = useAsync(() => api.get<{ keys: ApiKey[] }>(base), [api, base]);
  const [error, setError] = useState<ApiError | null>(null);
  const [problems, setProblems] = useState<Partial<Record<KeyField, string>>>({});
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const canManage = useCan('admin');
  // After a revoke its row (which had focus) is gone: focus goes to the list's heading instead.
  const listHeading = useRef<HTMLHeadingElement>(null);
  return (
    <>
      <h1>Keys</h1>
      <p class="muted">
        An app sends events with a project key. After creating one, see <a href={`#${pathOf('projects', params.projectId!)}/install`}>Install</a>.
      </p>
      {created && <NewKeyPanel created={created} onDone={() => setCreated(null)} />}
      {!canManage && <ReadOnlyNote needed="admin" what="create and revoke keys" />}
      {canManage && (
        <section aria-labelledby="create-key">
          <h2 id="create-key">New key</h2>
          <form
            class="grid-form"
            noValidate
            onSubmit={async (e) => {
              e.preventDefault();
              const form = e.currentTarget;
              const data = new FormData(form);
              const draft = keyDraft(data);
              // Checked here first, in plain words: nothing is sent that the API would refuse.
              const found = keyDraftProblems(draft);
              setProblems(found);
              setError(null);
              if (Object.keys(found).length) {
                requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
                return;
              }
              setBusy(true);
              try {
                const key = await api.post<CreatedKey>(base, keyBody(data, draft));
                setError(null);
                setCreated(key);
                form.reset();
                void list.reload();
              } catch (err) {
                setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
                // Focus the first field the API named, once it is marked.
                requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
              } finally {
                setBusy(false);
              }
            }}
          >
            <Field
              id="key-label"
              label="Label"
              hint="Optional: what the key is for, e.g. iOS app. Shown in the list; not a secret."
              error={problems.label ?? error?.forField('label')}
            >
              <input name="label" type="text" autoComplete="off" />
            </Field>
            <Field id="key-plan" label="Plan" error={error?.forField('plan')}>
              <select name="plan">
                <option value="free">free</option>
                <option value="pro">pro</option>
                <option value="enterprise">enterprise</option>
              </select>
            </Field>
            <Field
              id="key-limit"
              label="Rate limit per minute"
              hint="Optional: overrides the plan's limit."
              error={problems.rate_limit_per_minute ?? error?.forField('rate_limit_per_minute')}
            >
              <input name="rate_limit_per_minute" type="text" inputMode="numeric" autoComplete="off" />
            </Field>
            <Field
              id="key-origins"
              label="Allowed origins"
              hint="Optional, one a line, e.g. https://app.example.com or https://*.example.com. Empty: any origin."
              error={problems.allowed_origins ?? error?.forField('allowed_origins')}
            >
              <textarea name="allowed_origins" rows={2} />
            </Field>
            <Field
              id="key-bundles"
              label="Allowed bundle IDs"
              hint="Optional, one a line, e.g. com.example.app. Empty: any app."
              error={problems.allowed_bundle_ids ?? error?.forField('allowed_bundle_ids')}
            >
              <textarea name="allowed_bundle_ids" rows={2} />
            </Field>
            {error?.apartFrom(FIELDS) && (
              <p class="error" role="alert">
                {error.apartFrom(FIELDS)}
              </p>
            )}
            <div class="actions">
              <button type="submit" disabled={busy}>
                Create key
              </button>
            </div>
          </form>
        </section>
      )}
      <section aria-labelledby="key-list">
        <h2 id="key-list" tabIndex={-1} ref={listHeading}>
          Active keys
        </h2>
        <AsyncView state={list}>
          {({ keys }) =>
            keys.length === 0 ? (
              <p class="muted">No keys yet.</p>
            ) : (
              <ListTable columns={['Label', 'Prefix', 'Plan', 'Limit', 'Restrictions', 'Created']} action="Actions">
                {newestFirst(keys).map((k) => (
                  <tr key={k.id}>
                    <td data-label="Label">{k.label ?? <span class="muted">—</span>}</td>
                    <td class="mono nowrap" data-label="Prefix">
                      {k.key_prefix}…
                    </td>
                    <td data-label="Plan">{k.plan}</td>
                    <td class="num" data-label="Limit">
                      {k.rate_limit_per_minute.toLocaleString('en')}/min
                    </td>
                    <td data-label="Restrictions">
                      <Restrictions k={k} />
                    </td>
                    <td data-label="Created">{formatTime(k.created_at)}</td>
                    <td>
                      {canManage && (
                        <button
                          type="button"
                          class="danger small"
                          aria-label={`Revoke ${k.label === null ? k.key_prefix : `${k.label} (${k.key_prefix})`}`}
                          onClick={() => {
                            setRevokeError(null);
                            setRevoking(k);
                          }}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </ListTable>
            )
          }
        </AsyncView>
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke"
        busy={revokeBusy}
        error={revokeError}
        onCancel={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          setRevokeBusy(true);
          try {
            await api.delete(`${base}/${encodeURIComponent(revoking.id)}`);
            setRevoking(null);
            void list.reload();
            listHeading.current?.focus();
          } catch (err) {
            setRevokeError(err instanceof Error ? err.message : String(err));
          } finally {
            setRevokeBusy(false);
          }
        }}
      >
        <p>
          Every app using the key <code>{revoking?.key_prefix}…</code> gets 401 from then on, and its events are refused. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

function Restrictions({ k }: { k: ApiKey }) {
  if (!k.allowed_origins.length && !k.allowed_bundle_ids.length) return <span class="muted">None</span>;
  return (
    <ul class="plain">
      {k.allowed_origins.map((o) => (
        <li key={`o${o}`}>Origin {o}</li>
      ))}
      {k.allowed_bundle_ids.map((b) => (
        <li key={`b${b}`}>App {b}</li>
      ))}
    </ul>
  );
}

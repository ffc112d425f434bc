/**
 * Install: the SDK snippets (script tag and npm, see sdk/README.md) filled in with this deployment's
 * base URL and a key. Keys cannot be read back, so the key is pasted, or created right here.
 */
import { useState } from 'preact/hooks';
import type { CreatedKey } from '../admin-types';
import { CopyButton } from '../components/copy-button';
import { Field } from '../components/field';
import { NewKeyPanel } from '../components/new-key';
import type { PageProps } from '../page';
import { pathOf } from '../router';

const KEY_PLACEHOLDER = 'YOUR_PROJECT_KEY';

export function scriptSnippet(baseURL: string, apiKey: string): string {
  return [
    '<!-- Serve tally.min.js (@tally/sdk/tally.min.js) with your site -->',
    '<script src="/js/tally.min.js"></script>',
    '<script>',
    `  const tally = Tally.init({ apiKey: ${JSON.stringify(apiKey)}, baseURL: ${JSON.stringify(baseURL)} });`,
    "  tally.track('page_viewed', { path: location.pathname });",
    '</script>',
  ].join('\n');
}

export function npmSnippet(baseURL: string, apiKey: string): string {
  return [
    "import { init } from '@tally/sdk';",
    '',
    `const tally = init({ apiKey: ${JSON.stringify(apiKey)}, baseURL: ${JSON.stringify(baseURL)} });`,
    "tally.track('signup_started', { plan: 'pro' });",
    "tally.identify('user-42', { email: 'ada@example.com' }); // after sign-in",
  ].join('\n');
}

export function InstallPage({ api, baseUrl, params }: PageProps) {
  const [key, setKey] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const baseURL = baseUrl.replace(/\/$/, '');
  const apiKey = key.trim() || KEY_PLACEHOLDER;
  return (
    <>
      <h1>Install the SDK</h1>
      <p>
        Send events from your app with <code>@tally/sdk</code>. The snippets below use this deployment's address <code>{baseURL}</code> and the key you enter.
      </p>
      <section aria-labelledby="choose-key">
        <h2 id="choose-key">Key</h2>
        <p class="muted">
          A key is shown only when it is created. Paste one you saved, or create a free key here (set limits and restrictions on the{' '}
          <a href={`#${pathOf('projects', params.projectId!)}/keys`}>Keys</a> page).
        </p>
        <div class="inline-form">
          <Field id="install-key" label="Project key" error={error ?? undefined}>
            <input type="text" autoComplete="off" spellcheck={false} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </Field>
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                const k = await api.post<CreatedKey>(`/admin/v1${pathOf('projects', params.projectId!)}/keys`, {});
                setCreated(k);
                setKey(k.key);
                setError(null);
              } catch (err) {
                setError(err instanceof Error ? err.message : String(err));
              } finally {
                setBusy(false);
              }
            }}
          >
            Create key
          </button>
        </div>
      </section>
      {created && <NewKeyPanel created={created} />}
      <Snippet title="Script tag" text={scriptSnippet(baseURL, apiKey)} />
      <Snippet title="npm" text={`npm install @tally/sdk\n\n${npmSnippet(baseURL, apiKey)}`} />
      <p class="muted">
        Events arrive on the <a href={`#${pathOf('projects', params.projectId!)}/events`}>Events</a> page within seconds locally (on AWS after the delivery
        buffer, up to 5 minutes).
      </p>
    </>
  );
}

function Snippet({ title, text }: { title: string; text: string }) {
  const id = `snippet-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section aria-labelledby={id}>
      <div class="section-head">
        <h2 id={id}>{title}</h2>
        <CopyButton text={text} label={`Copy ${title.toLowerCase()} snippet`} />
      </div>
      <pre class="code" tabIndex={0} aria-labelledby={id}>
        {text}
      </pre>
    </section>
  );
}

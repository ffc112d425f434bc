/**
 * Install: the SDK as this deployment serves it (sdk/manifest.json: the script-tag build at a
 * versioned path with its integrity hash, and the npm package of the same version), in snippets
 * filled in with this deployment's addresses and a key. Keys cannot be read back, so the key is
 * pasted, or created right here. Only what works is shown: the code needing a key appears once a
 * key that looks like one is chosen.
 */
import { useState } from 'preact/hooks';
import { looksLikeApiKey } from '../../../lambdas/domain/api-key-shape';
import { SDK_MANIFEST_FILE, type SdkManifest } from '../../../lambdas/contract/dashboard';
import type { CreatedKey } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { CopyButton } from '../components/copy-button';
import { Field } from '../components/field';
import { NewKeyPanel } from '../components/new-key';
import type { PageProps } from '../page';
import { pathOf } from '../router';

/** The SDK files, served with the dashboard (locally by npm start, on AWS by its distribution). */
async function loadManifest(): Promise<SdkManifest & { origin: string }> {
  const url = new URL(SDK_MANIFEST_FILE, location.href);
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store' });
  } catch {
    throw new Error('Could not read the SDK files of this deployment. Check your connection and reload.');
  }
  if (!response.ok) throw new Error(`This deployment does not serve the SDK files (${response.status}): ${(await response.text()).slice(0, 200)}`);
  return { ...((await response.json()) as SdkManifest), origin: url.origin };
}

export function scriptSnippet(src: string, integrity: string, baseURL: string, apiKey: string): string {
  return [
    '<script',
    `  src="${src}"`,
    `  integrity="${integrity}"`,
    '  crossorigin="anonymous"></script>',
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
  const manifest = useAsync(loadManifest, []);
  const baseURL = baseUrl.replace(/\/$/, '');
  const typed = key.trim();
  const keyProblem =
    typed && !looksLikeApiKey(typed) ? 'This is not a whole project key: keys start with tally_ and have 49 characters. Paste it again, or create one.' : null;
  const apiKey = typed && !keyProblem ? typed : null;
  const projectPath = pathOf('projects', params.projectId!);
  return (
    <>
      <h1>Install the SDK</h1>
      <AsyncView state={manifest}>
        {(sdk) => {
          const script = `${sdk.origin}/${sdk.script}`;
          const tarball = `${sdk.origin}/${sdk.package}`;
          return (
            <>
              <p>
                Send events from your app with <code>@tally/sdk</code> {sdk.version}, served by this deployment: no package registry needed. The snippets send
                to this deployment's address <code>{baseURL}</code> with the key you choose.
              </p>
              <section aria-labelledby="choose-key">
                <h2 id="choose-key">Key</h2>
                <p class="muted">
                  A key is shown only when it is created. Paste one you saved, or create a free key here (set limits and restrictions on the{' '}
                  <a href={`#${projectPath}/keys`}>Keys</a> page).
                </p>
                <div class="inline-form">
                  <Field id="install-key" label="Project key" error={error ?? keyProblem ?? undefined}>
                    <input class="key-input" type="text" autoComplete="off" spellcheck={false} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
                  </Field>
                  <button
                    type="button"
                    class="secondary"
                    disabled={busy}
                    onClick={async () => {
                      setBusy(true);
                      try {
                        const k = await api.post<CreatedKey>(`/admin/v1${projectPath}/keys`, {});
                        setCreated(k);
                        setKey(k.key);
                        setError(null);
                      } catch (err) {
                        setError(`The key was not created: ${err instanceof Error ? err.message : String(err)}`);
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
              {apiKey === null && (
                <p class="notice" role="status">
                  Paste a key or create one: the code below then carries it.
                </p>
              )}
              <section aria-labelledby="snippet-script">
                <div class="section-head">
                  <h2 id="snippet-script">Script tag</h2>
                  {apiKey && <CopyButton text={scriptSnippet(script, sdk.integrity, baseURL, apiKey)} label="Copy script tag snippet" />}
                </div>
                <p class="muted">
                  Loads the SDK from this deployment. The <code>integrity</code> hash makes the browser refuse any other file at that address.
                </p>
                {apiKey && <Code label="Script tag snippet" text={scriptSnippet(script, sdk.integrity, baseURL, apiKey)} />}
              </section>
              <section aria-labelledby="snippet-npm">
                <div class="section-head">
                  <h2 id="snippet-npm">npm</h2>
                  <CopyButton text={`npm install ${tarball}`} label="Copy npm install command" />
                </div>
                <p class="muted">Installs the package from this deployment (it has no dependencies), for bundlers and Node:</p>
                <Code label="npm install command" text={`npm install ${tarball}`} />
                {apiKey && (
                  <>
                    <div class="section-head snippet-then">
                      <p>Then, in your app:</p>
                      <CopyButton text={npmSnippet(baseURL, apiKey)} label="Copy npm snippet" />
                    </div>
                    <Code label="npm snippet" text={npmSnippet(baseURL, apiKey)} />
                  </>
                )}
                <p class="muted">
                  To publish it to your own npm registry instead, download that file and run{' '}
                  <code>npm publish tally-sdk-{sdk.version}.tgz --registry &lt;your registry&gt;</code>; then <code>npm install @tally/sdk</code> works too.
                </p>
              </section>
              <p class="muted">
                Events arrive on the <a href={`#${projectPath}/events`}>Events</a> page within seconds locally (on AWS after the delivery buffer, up to 5
                minutes).
              </p>
            </>
          );
        }}
      </AsyncView>
    </>
  );
}

function Code({ label, text }: { label: string; text: string }) {
  return (
    <pre class="code wrap" tabIndex={0} aria-label={label}>
      {text}
    </pre>
  );
}

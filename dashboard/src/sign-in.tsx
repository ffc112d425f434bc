/**
 * The sign-in page: single sign-on through the deployment's issuer when it has one (sso.ts), and the
 * admin token (automation and break-glass): the admin token is checked with GET /admin/v1/projects before it is kept (in
 * sessionStorage, see session.ts); a wrong token is said to be wrong, with where the right one is.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, createApiClient } from './api';
import { Field } from './components/field';
import type { Sso } from './sso';

export function SignIn({ apiBase, notice, sso, onSignedIn }: { apiBase: string; notice: string | null; sso?: Sso; onSignedIn: (token: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Tally';
    if (!sso) input.current?.focus();
  }, [sso]);
  return (
    <main id="main" class="sign-in">
      <h1>Tally</h1>
      {notice && (
        <p class="notice" role="alert">
          {notice}
        </p>
      )}
      {sso && (
        <section class="sso" aria-labelledby="sso-heading">
          <h2 id="sso-heading">Sign in with your organisation</h2>
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              sso.signIn().catch((err: unknown) => {
                setError(`Cannot reach the sign-in issuer: ${err instanceof Error ? err.message : String(err)}`);
                setBusy(false);
              });
            }}
          >
            Sign in with single sign-on
          </button>
          <h2>Or with the admin token</h2>
          <p class="muted">For automation and break-glass; people sign in above.</p>
        </section>
      )}
      {!sso && <p class="muted">Sign in with this deployment's admin token (npm start prints it).</p>}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const token = String(new FormData(e.currentTarget).get('token') ?? '').trim();
          if (!token) {
            setError('Enter the admin token.');
            return;
          }
          setBusy(true);
          setError(null);
          try {
            await createApiClient(
              apiBase,
              () => token,
              () => {},
            ).get('/admin/v1/projects');
            onSignedIn(token);
          } catch (err) {
            setError(
              err instanceof ApiError && err.status === 401
                ? "That is not this deployment's admin token. Locally, npm start prints it and keeps it in .tally/admin-token; on AWS it is in Secrets Manager (see the deploy guide)."
                : err instanceof ApiError
                  ? err.message
                  : String(err),
            );
            setBusy(false);
            input.current?.focus();
          }
        }}
      >
        <Field id="token" label="Admin token" error={error ?? undefined}>
          <input ref={input} name="token" type="password" autoComplete="current-password" required />
        </Field>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

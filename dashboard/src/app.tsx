/** The app shell: sign-in when there is no token, else the navigation and the routed page. */
import { useMemo, useState } from 'preact/hooks';
import { createApiClient } from './api';
import { match, navigate, useRoute } from './router';
import { ROUTES } from './routes';
import { session } from './session';

export function App({ apiBase }: { apiBase: string }) {
  const path = useRoute();
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  const api = useMemo(
    () =>
      createApiClient(apiBase, session.token, (message) => {
        session.signOut();
        setNotice(`Signed out: ${message}. Sign in again.`);
        setSignedIn(false);
      }),
    [apiBase],
  );
  if (!signedIn) {
    return (
      <main>
        {notice && <p role="alert">{notice}</p>}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const token = new FormData(e.currentTarget).get('token');
            if (typeof token === 'string' && token !== '') {
              session.signIn(token);
              setNotice(null);
              setSignedIn(true);
            }
          }}
        >
          <label>
            Admin token <input name="token" type="password" autoComplete="current-password" required />
          </label>
          <button type="submit">Sign in</button>
        </form>
      </main>
    );
  }
  for (const route of ROUTES) {
    const params = match(route.pattern, path);
    if (params) {
      const Page = route.page;
      return (
        <main>
          <button
            type="button"
            onClick={() => {
              session.signOut();
              setSignedIn(false);
            }}
          >
            Sign out
          </button>
          <Page api={api} apiBase={apiBase} params={params} />
        </main>
      );
    }
  }
  navigate('/projects');
  return null;
}

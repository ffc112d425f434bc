import { render } from 'preact';
import { App } from './app';
import { loadEndpoints } from './config';
import { createSso } from './sso';
import './styles.css';

void loadEndpoints()
  .then(async (endpoints) => {
    const sso = endpoints.signIn ? createSso(endpoints.signIn) : undefined;
    const resumed = sso ? await sso.resume() : null;
    // On its way to the issuer (a new tab, or an expired session): nothing to draw.
    if (resumed === 'redirecting') return;
    render(<App {...endpoints} sso={sso} resumed={resumed} />, document.getElementById('app')!);
  })
  .catch((err: unknown) => {
    console.error('The dashboard could not start:', err);
    document.getElementById('app')!.textContent = `The dashboard could not start: ${err instanceof Error ? err.message : String(err)}. Reload the page.`;
  });

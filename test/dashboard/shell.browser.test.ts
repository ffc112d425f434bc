/** The dashboard shell: served at / with its CSP, sign in and out, the token in sessionStorage only. */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, useDashboardServer } from '../helpers/dashboard';
import { ADMIN_TOKEN } from '../helpers/local';

describeBrowser('dashboard shell', () => {
  const server = useDashboardServer();

  it('serves the dashboard at / with a CSP that allows no inline script', async () => {
    const response = await fetch(`${server.stack.url}/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).toMatch(/<script type="module" src="assets\/main-[A-Z0-9]+\.js"><\/script>/);
  });

  it('signs in with the admin token kept in sessionStorage only, and signs out', async () => {
    const dash = await openDashboard(server.browser, server.stack.url);
    const stored = await dash.page.evaluate(() => ({
      session: (globalThis as any).sessionStorage.getItem('tally.adminToken'),
      local: (globalThis as any).localStorage.length,
      url: (globalThis as any).location.href,
    }));
    expect(stored).toEqual({ session: ADMIN_TOKEN, local: 0, url: expect.not.stringContaining(ADMIN_TOKEN) });
    await dash.page.click('button ::-p-text(Sign out)');
    await dash.page.waitForSelector('input[name="token"]');
    expect(await dash.page.evaluate(() => (globalThis as any).sessionStorage.getItem('tally.adminToken'))).toBeNull();
    expect(dash.problems).toEqual([]);
  });
});

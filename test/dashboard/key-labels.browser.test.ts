/** The Keys page: a key's optional label is typed when creating it, checked before sending, and shown in the list. */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, useDashboardServer } from '../helpers/dashboard';

describeBrowser('key labels on the Keys page', () => {
  const server = useDashboardServer();

  it('creates a key with a label and lists it by that label; a too-long label is named before sending', async () => {
    const projectId = await server.stack.createProject('Labels');
    await server.stack.admin('POST', `/admin/v1/projects/${projectId}/keys`, { plan: 'free' });
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await dash.go(`/projects/${projectId}/keys`);
    await page.waitForSelector('h2 ::-p-text(Active keys)');
    await page.waitForSelector('table');

    await page.type('#key-label', 'x'.repeat(201));
    await page.click('button ::-p-text(Create key)');
    await page.waitForSelector('#key-label-error');
    expect(await page.$eval('#key-label-error', (e) => e.textContent)).toBe('Shorten the label to 200 characters or fewer (it has 201).');
    expect((await server.stack.admin('GET', `/admin/v1/projects/${projectId}/keys`)).body.keys).toHaveLength(1);

    await page.$eval('#key-label', (e) => ((e as any).value = ''));
    await page.type('#key-label', 'iOS app');
    await page.click('button ::-p-text(Create key)');
    await page.waitForSelector('td[data-label="Label"] ::-p-text(iOS app)');
    const labels = await page.$$eval('td[data-label="Label"]', (cells) => cells.map((c) => c.textContent));
    expect(labels).toEqual(['iOS app', '—']);
    expect(await page.$eval('button[aria-label^="Revoke iOS app"]', (e) => e.getAttribute('aria-label'))).toMatch(/^Revoke iOS app \(tally_/);
    const listed = (await server.stack.admin('GET', `/admin/v1/projects/${projectId}/keys`)).body.keys;
    expect(listed.map((k: { label: string | null }) => k.label)).toEqual([null, 'iOS app']);
    await dash.screenshot('keys-labels');
    await page.close();
  });
});

/** The Audit log page: who changed what, newest first, filtered by route; never the values sent. */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, useDashboardServer } from '../helpers/dashboard';

describeBrowser('the Audit log page', () => {
  const server = useDashboardServer();

  it('lists admin writes with who, change, target, fields, network and status, never the values, and filters them by route', async () => {
    const projectId = await server.stack.createProject('Audited shop');
    for (const name of ['Hero banner', 'Checkout copy']) {
      await server.stack.admin('POST', `/admin/v1/projects/${projectId}/experiments`, { name, goal_event: 'purchase' });
    }
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await page.click('a ::-p-text(Audit log)');
    await page.waitForSelector('h1 ::-p-text(Audit log)');
    await page.waitForSelector('td[data-label="Change"]');
    const rows = await page.$$eval('table.audit tbody tr', (trs) =>
      trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td[data-label]')].map((td) => [td.getAttribute('data-label'), td.textContent]))),
    );
    expect(rows[0]).toMatchObject({
      Who: 'admin token',
      Role: 'admin',
      Change: 'admin-experiments-create',
      Target: `project_id ${projectId}`,
      Fields: 'goal_event, name',
      From: '127.0.0.0/24',
      Status: '201',
    });
    expect(rows.map((r) => r.Change)).toEqual(expect.arrayContaining(['admin-projects-create']));
    expect(await page.$eval('main', (m) => m.textContent)).not.toContain('Hero banner');
    await dash.screenshot('audit-log');

    await page.type('#audit-route', 'admin-experiments-create');
    await page.click('button ::-p-text(Filter)');
    await page.waitForFunction(() =>
      [...(globalThis as any).document.querySelectorAll('td[data-label="Change"]')].every(
        (td: { textContent: string }) => td.textContent === 'admin-experiments-create',
      ),
    );
    expect(await page.$$eval('table.audit tbody tr', (trs) => trs.length)).toBe(2);
    await page.close();
  });
});

/**
 * A project's time zone in the dashboard (Chromium against the local server): a project created with
 * a zone chosen in the form, and another's zone changed in place on its card; the API then answers the
 * zones, and a reload shows them. Screenshot: test-output/dashboard/projects-time-zone-1280.png.
 */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, problemsApartFrom, useDashboardServer } from '../helpers/dashboard';

describeBrowser('dashboard: project time zone', () => {
  const server = useDashboardServer();

  it('sets a time zone at creation and changes another project’s on its card', async () => {
    const existing = await server.stack.createProject('Zone later project');
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await page.waitForSelector(`#time-zone-${existing}`);
    // A project that never set one counts in UTC, and says so.
    expect(await page.$eval(`#time-zone-${existing}`, (e) => (e as any).value)).toBe('UTC');

    // Change it in place.
    await page.select(`#time-zone-${existing}`, 'America/New_York');
    await page.$eval(`#time-zone-${existing}`, (e) => (e as any).closest('form').requestSubmit());
    await page.waitForSelector('[role="status"] ::-p-text(insights now count days in America/New_York)');
    const listed = (await server.stack.admin('GET', '/admin/v1/projects')).body.projects as Array<{ id: string; time_zone?: string }>;
    expect(listed.find((p) => p.id === existing)?.time_zone).toBe('America/New_York');

    // Create one with a zone from the form.
    await page.type('#project-name', 'Zoned shop');
    await page.select('#project-time-zone', 'Pacific/Honolulu');
    await page.click('button ::-p-text(Create project)');
    await page.waitForFunction(() => (globalThis as any).location.hash.endsWith('/keys'));
    const created = ((await server.stack.admin('GET', '/admin/v1/projects')).body.projects as Array<{ name: string; time_zone?: string }>).find(
      (p) => p.name === 'Zoned shop',
    );
    expect(created?.time_zone).toBe('Pacific/Honolulu');

    // Back on the list, both cards show their zones.
    await dash.go('#/');
    await page.waitForSelector(`#time-zone-${existing}`);
    expect(await page.$eval(`#time-zone-${existing}`, (e) => (e as any).value)).toBe('America/New_York');
    const zones = await page.$$eval('select[id^="time-zone-"]', (els) => els.map((e) => (e as any).value));
    expect(zones).toContain('Pacific/Honolulu');
    await dash.screenshot('projects-time-zone');
    expect(problemsApartFrom(dash.problems)).toEqual([]);
    await page.close();
  });
});

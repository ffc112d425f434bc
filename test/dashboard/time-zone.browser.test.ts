/**
 * A project's time zone in the dashboard (Chromium against the local server): a project's zone changed
 * in place on its card, and one created with a zone through the API; the API then answers the zones,
 * and a reload shows them. A new insight's "last 7 days" ends today in the project's zone, not UTC's.
 * Screenshot: test-output/dashboard/projects-time-zone-1280.png.
 */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, problemsApartFrom, useDashboardServer } from '../helpers/dashboard';

describeBrowser('dashboard: project time zone', () => {
  const server = useDashboardServer();

  it('shows each project’s time zone on its card and changes it in place', async () => {
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

    // A project created through the API with a zone shows it on its card.
    const zoned = await server.stack.admin('POST', '/admin/v1/projects', { name: 'Zoned shop', time_zone: 'Pacific/Honolulu' });
    expect(zoned.status).toBe(201);

    // Back on the list, both cards show their zones.
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector(`#time-zone-${zoned.body.id}`);
    expect(await page.$eval(`#time-zone-${existing}`, (e) => (e as any).value)).toBe('America/New_York');
    expect(await page.$eval(`#time-zone-${zoned.body.id}`, (e) => (e as any).value)).toBe('Pacific/Honolulu');
    await dash.screenshot('projects-time-zone');
    expect(problemsApartFrom(dash.problems)).toEqual([]);
    await page.close();
  });

  it("ends a new insight's last 7 days on today in the project's zone", async () => {
    // 2026-05-20 20:00 UTC is already 2026-05-21 10:00 at UTC+14 (Kiritimati).
    const fixed = Date.parse('2026-05-20T20:00:00.000Z');
    const kiritimati = (await server.stack.admin('POST', '/admin/v1/projects', { name: 'Far east shop', time_zone: 'Pacific/Kiritimati' })).body.id as string;
    const utc = await server.stack.createProject('UTC shop');
    const dash = await openDashboard(server.browser, server.stack.url, {
      beforeLoad: async (p) => {
        await p.evaluateOnNewDocument((at: number) => {
          const g = globalThis as any;
          const Real = g.Date;
          class Fixed extends Real {
            constructor(...args: unknown[]) {
              super(...((args.length ? args : [at]) as []));
            }
            static now() {
              return at;
            }
          }
          g.Date = Fixed;
        }, fixed);
      },
    });
    const { page } = dash;
    const range = async (project: string) => {
      await dash.go(`/projects/${project}/insights/trends`);
      await page.waitForSelector('#trend-to');
      return [await page.$eval('#trend-from', (e) => (e as any).value), await page.$eval('#trend-to', (e) => (e as any).value)];
    };
    expect(await range(kiritimati)).toEqual(['2026-05-15', '2026-05-21']);
    expect(await range(utc)).toEqual(['2026-05-14', '2026-05-20']);
    await page.close();
  });
});

/**
 * People and the person's page give the same first seen (the earliest event's time, also after a
 * backfill of older events sent later) and last seen (the newest event's), first never after last.
 * Screenshot in test-output/dashboard/person-first-seen-*.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { problemsApartFrom, useDashboardProject } from '../helpers/dashboard';

const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Math.floor(Date.now() / DAY) * DAY - daysAgo * DAY + 9 * 3_600_000).toISOString();
const shown = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;
const fact = (page: Page, term: string) =>
  page.$$eval('dl.facts dt', (dts, wanted) => (dts.find((dt) => dt.textContent === wanted)?.nextElementSibling?.textContent ?? null) as string | null, term);

describeBrowser('first and last seen on People and the person page', () => {
  const env = useDashboardProject('first seen', {
    beforeOpen: async ({ stack, key }) => {
      const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
      await send([
        { name: 'page_view', user_id: 'anon-pat', timestamp: at(3) },
        { name: '$identify', user_id: 'pat', timestamp: at(3), properties: { $anonymous_id: 'anon-pat', name: 'Pat Backfill' } },
        { name: 'page_view', user_id: 'pat', timestamp: at(1) },
      ]);
      // The backfill: an older event of the signed-in ID, sent after the newer ones.
      await send([{ name: 'purchase', user_id: 'pat', timestamp: at(12) }]);
    },
  });

  it('shows the earliest event as first seen and the newest as last seen, the same on both pages', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/users`);
    await page.waitForSelector('td[data-label="Person"] ::-p-text(Pat Backfill)');
    const row = await page.$$eval('tbody tr', (rows) =>
      rows.map((r) => Object.fromEntries([...r.querySelectorAll('td')].map((td) => [td.getAttribute('data-label'), td.textContent]))),
    );
    expect(row[0]).toMatchObject({ 'First seen': shown(at(12)), 'Last seen': shown(at(1)) });

    await page.click('td[data-label="Person"]');
    await page.waitForSelector('h1 ::-p-text(Pat Backfill)');
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('dl.facts')?.textContent.includes('…'));
    expect(await fact(page, 'First seen')).toBe(shown(at(12)));
    expect(await fact(page, 'Last seen')).toBe(shown(at(1)));
    await env.dash.screenshot('person-first-seen');
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });
});

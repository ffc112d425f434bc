/**
 * The README's Quick start walk-through, in the browser only, with the labels the README names:
 * sign in, create a project and a key, create and start an experiment, send an exposure and a goal
 * event from the SDK's example page (/example/), see them in Events, and read the results.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { clickButton, refreshResults, openDashboard, problemsApartFrom, useDashboardServer, WAIT_MS } from '../helpers/dashboard';
import { ADMIN_TOKEN } from '../helpers/local';

/** Types into the control labelled `label` (its <label>'s text, as a user reads it). */
async function typeInto(page: Page, label: string, value: string): Promise<void> {
  const control = await page.waitForFunction(
    (l) => [...(globalThis as any).document.querySelectorAll('label')].find((x: any) => x.textContent.trim().startsWith(l))?.control ?? null,
    {},
    label,
  );
  await (control as any).type(value);
}

describeBrowser('dashboard: the README walk-through', () => {
  const server = useDashboardServer();

  it('goes from a new project to an experiment’s results without curl', async () => {
    const dash = await openDashboard(server.browser, server.stack.url, { signIn: false });
    const { page } = dash;
    // 1. Sign in.
    await typeInto(page, 'Admin token', ADMIN_TOKEN);
    await clickButton(page, 'Sign in');
    // 2. Create a project: its Keys page opens.
    await typeInto(page, 'Name', 'Walk-through shop');
    await clickButton(page, 'Create project');
    await page.waitForSelector('h1 ::-p-text(Keys)');
    // 3. Create a key; it is shown once.
    await clickButton(page, 'Create key');
    await page.waitForSelector('code.secret');
    const key = await page.$eval('code.secret', (c) => c.textContent!.trim());
    expect(key).toMatch(/^tally_/);
    // 4. Create an experiment and start it.
    await page.click('nav a ::-p-text(Experiments)');
    await clickButton(page, 'Create experiment');
    await typeInto(page, 'Name', 'Checkout button');
    await typeInto(page, 'Goal event', 'purchase');
    expect(await page.$$eval('.variants-field input[name^="variant-"]', (i) => i.map((x: any) => x.value))).toEqual(['control', 'treatment']);
    await clickButton(page, 'Save');
    await page.waitForSelector('::-p-text(Created.)');
    await clickButton(page, 'Start');
    await clickButton(page, 'Yes, start it');
    await page.waitForSelector('.status-badge.status-running');

    // 5. The SDK's example page: paste the key, Start, getVariant(), track('purchase'), flush().
    const example = await server.browser.newPage();
    example.setDefaultTimeout(WAIT_MS);
    const exampleProblems: string[] = [];
    example.on('pageerror', (m) => exampleProblems.push(String(m)));
    await example.goto(`${server.stack.url}/example/`);
    await typeInto(example, 'API key', key);
    await clickButton(example, 'Start');
    // The log says "ready" once the assignments are in.
    await example.waitForFunction(() => (globalThis as any).document.getElementById('log').textContent.split('\n').includes('ready'));
    await typeInto(example, 'Experiment name', 'Checkout button');
    // ready() gives up after 5 s and getVariant() then answers the fallback; on a busy machine the
    // assignments can take longer, so press getVariant() until they are in.
    await example.waitForFunction(
      () => {
        const document = (globalThis as any).document;
        document.getElementById('variant').click();
        return !document.getElementById('log').textContent.split('\n')[0].includes('→ (fallback)');
      },
      { polling: 250 },
    );
    const assigned = await example.$eval('#log', (l) => l.textContent!.split('\n')[0]!);
    expect(assigned).toMatch(/^Checkout button → (control|treatment)$/);
    await example.$eval('#event', (i: any) => (i.value = ''));
    await typeInto(example, 'Event name', 'purchase');
    await clickButton(example, 'track()');
    await clickButton(example, 'flush()');
    await example.waitForFunction(() => (globalThis as any).document.getElementById('log').textContent.startsWith('flushed'));
    expect(exampleProblems).toEqual([]);
    await example.close();

    // 6. Events: both arrive.
    await page.click('nav a ::-p-text(Events)');
    await page.waitForSelector('ol.events .event-name ::-p-text(purchase)');
    expect(await page.$$eval('ol.events .event-name', (n) => n.map((x) => x.textContent))).toContain('$experiment_exposure');

    // 7. Results: Refresh, then one user enrolled and converted in the assigned variant.
    await page.click('nav a ::-p-text(Experiments)');
    await (await page.waitForSelector('a[aria-label="Results of Checkout button"]'))!.click();
    await refreshResults(page);
    await page.waitForSelector('table[data-table="variants"]');
    const rows = await page.$$eval('table[data-table="variants"] tbody tr', (trs) => trs.map((tr: any) => [...tr.cells].map((c: any) => c.innerText.trim())));
    const variant = assigned.split(' → ')[1]!;
    const row = rows.find((r) => r[0]!.startsWith(variant))!;
    expect(row.slice(1, 3)).toEqual(['1', '1']);
    await page.waitForSelector('.how-computed .query-text');
    expect(problemsApartFrom(dash.problems, 404)).toEqual([]);
    await dash.screenshot('walkthrough-results');
  }, 180_000);
});

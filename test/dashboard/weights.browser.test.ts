/**
 * Variant weights in the dashboard (issue 23), in real Chromium against the local server: the form
 * sets a weight per variant (checked before sending, in plain words), edits them while created, the
 * start confirmation and the started summary show each variant once with its share, and the
 * sample-ratio warning names the split the weights aim for. Screenshots in test-output/dashboard/.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { clickButton, refreshResults, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.click(selector, { count: 3 });
  await page.keyboard.press('Backspace');
  if (value) await page.type(selector, value);
}

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const value = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).value as string);

describeBrowser('dashboard: variant weights', () => {
  let experimentId = '';
  const base = () => `/admin/v1/projects/${env.project}/experiments`;

  const env = useDashboardProject('dashboard weights');

  it('sets a weight per variant, refusing weights that do not add up to 100 before sending anything', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-name', 'Risky checkout');
    await page.type('#experiment-goal', 'purchase');
    // Equal by default: no weight inputs until the box is unticked; then a near-equal start.
    expect(await page.$('#weight-0')).toBeNull();
    await page.click('input[name="equal_split"]');
    await page.waitForSelector('#weight-1');
    expect([await value(page, '#weight-0'), await value(page, '#weight-1')]).toEqual(['50', '50']);

    const writes: string[] = [];
    page.on('request', (r) => r.method() !== 'GET' && writes.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await fill(page, '#weight-0', '90');
    await fill(page, '#weight-1', '5');
    expect(await text(page, '#weights-total')).toContain('together 95% of 100%');
    await clickButton(page, 'Save');
    await page.waitForSelector('#weights-error');
    expect(await text(page, '#weights-error')).toBe('The weights add up to 95%: make them add up to 100%.');
    expect(writes).toEqual([]);
    await env.dash.screenshot('experiment-weights-error');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await fill(page, '#weight-1', '10');
    await page.waitForSelector('#weights-error', { hidden: true });
    await env.dash.screenshot('experiment-weights-form');
    await clickButton(page, 'Save');
    await page.waitForFunction(() => /\/experiments\/[0-9a-f-]{36}$/.test((globalThis as any).location.hash));
    experimentId = (await page.evaluate(() => (globalThis as any).location.hash as string)).split('/').pop()!;
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body).toMatchObject({ variants: ['control', 'treatment'], weights: [90, 10] });
  });

  it('edits the weights while created, a third variant included, and back to an equal split', async () => {
    const { page } = env.dash;
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#weight-0')?.value === '90');
    await clickButton(page, 'Add variant');
    await page.type('#variant-2', 'express');
    await fill(page, '#weight-0', '80');
    await page.type('#weight-2', '10');
    await clickButton(page, 'Save');
    await page.waitForSelector('::-p-text(Saved.)');
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body).toMatchObject({
      variants: ['control', 'treatment', 'express'],
      weights: [80, 10, 10],
    });

    await page.click('input[name="equal_split"]');
    await page.waitForSelector('#weight-0', { hidden: true });
    await clickButton(page, 'Save');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.status-line')?.textContent === 'Saved.');
    await page.waitForSelector('button:not([disabled])::-p-text(Start)');
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body.weights).toBeNull();

    // 90/10 again, without the third variant.
    await page.click('button[aria-label="Remove variant 3"]');
    await page.click('input[name="equal_split"]');
    await fill(page, '#weight-0', '90');
    await fill(page, '#weight-1', '10');
    await clickButton(page, 'Save');
    await page.waitForSelector('button:not([disabled])::-p-text(Start)');
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body).toMatchObject({ variants: ['control', 'treatment'], weights: [90, 10] });
  });

  it('shows each variant once with its share when starting and once started', async () => {
    const { page } = env.dash;
    await clickButton(page, 'Start');
    await page.waitForSelector('dialog[open]');
    expect(await text(page, 'dialog[open]')).toContain('(control 90%, treatment 10%)');
    await env.dash.screenshot('experiment-weights-start');
    await clickButton(page, 'Yes, start it');
    await page.waitForSelector('.status-badge.status-running');
    await page.waitForSelector('.variant-shares');
    expect(await page.$$eval('.variant-shares li', (lis) => lis.map((li: any) => li.innerText.trim()))).toEqual([
      'control (control): 90% of users',
      'treatment: 10% of users',
    ]);
    await env.dash.screenshot('experiment-weights-summary');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Fixed once started: the API refuses a change.
    expect((await env.stack.admin('PATCH', `${base()}/${experimentId}`, { weights: [50, 50] })).status).toBe(409);
  });

  it('warns about a sample ratio mismatch against the weights: 90/10 enrolled evenly', async () => {
    const { page } = env.dash;
    const started = Date.parse((await env.stack.admin('GET', `${base()}/${experimentId}`)).body.started_at);
    const events = ['control', 'treatment'].flatMap((variant) =>
      Array.from({ length: 40 }, (_, i) => ({
        name: '$experiment_exposure',
        user_id: `${variant}-${i}`,
        timestamp: new Date(started + 1).toISOString(),
        properties: { $experiment_name: 'Risky checkout', $variant: variant },
      })),
    );
    expect((await env.stack.post('/v1/events', env.key, { events })).status).toBe(204);
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await refreshResults(page);
    await page.waitForSelector('[role="alert"].srm-warning');
    expect(await text(page, '.srm-warning')).toContain('enrolled 40 / 40 users, far from the 90% / 10% split the assignment aims for (its weights)');
    await env.dash.screenshot('results-srm-weights');
  });
});

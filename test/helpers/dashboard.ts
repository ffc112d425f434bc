/**
 * Dashboard tests in real headless Chromium against the local server (which serves the dashboard at
 * /): open a page, sign in, take screenshots into test-output/dashboard/ (not committed; look at them),
 * and fail on any console error or CSP violation the page reports.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { ADMIN_TOKEN } from './local';

export const SCREENSHOT_DIR = join(process.cwd(), 'test-output', 'dashboard');

export interface DashboardPage {
  page: Page;
  /** Console errors and CSP violations seen so far (a test asserts it stays empty). */
  problems: string[];
  /** Navigates to a hash route, e.g. "/projects". */
  go(route: string): Promise<void>;
  /** Saves test-output/dashboard/<name>-<width>.png. */
  screenshot(name: string): Promise<string>;
}

export async function openDashboard(browser: Browser, serverUrl: string, options: { width?: number; signIn?: boolean } = {}): Promise<DashboardPage> {
  const page = await browser.newPage();
  const width = options.width ?? 1280;
  await page.setViewport({ width, height: width < 600 ? 800 : 900 });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(String(err)));
  await page.goto(`${serverUrl}/`, { waitUntil: 'networkidle0' });
  if (options.signIn ?? true) {
    await page.type('input[name="token"]', ADMIN_TOKEN);
    await Promise.all([page.waitForSelector('input[name="token"]', { hidden: true }), page.click('button[type="submit"]')]);
  }
  return {
    page,
    problems,
    go: async (route) => {
      await page.evaluate((r) => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = r;
      }, route);
      await page.waitForNetworkIdle({ idleTime: 100 });
    },
    screenshot: async (name) => {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}-${width}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
  };
}

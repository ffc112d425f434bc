/**
 * Dashboard tests in real headless Chromium against the local server (which serves the dashboard at
 * /): open a page, sign in, take screenshots into test-output/dashboard/ (not committed; look at them),
 * and fail on any console error or CSP violation the page reports.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { DASHBOARD_CONFIG_FILE, type DashboardConfig } from '../../lambdas/contract/dashboard';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchBrowser } from './browser';
import type { LocalServerOptions } from '../../lambdas/local/server';
import { ADMIN_TOKEN, startTestProject, startTestStack, type TestStack } from './local';
import { LOGIN_FORM } from './oidc-issuer';

/** How long a page wait may take before it fails (generous: the CI machine has 2 cores shared with other test files). */
export const WAIT_MS = 15_000;

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

export interface OpenOptions {
  width?: number;
  signIn?: boolean;
  /** Serve this config.json instead of the local server's (as the stack writes it on AWS). */
  config?: DashboardConfig;
  /** Runs on the new page before it loads the dashboard (e.g. page.evaluateOnNewDocument to move its clock). */
  beforeLoad?: (page: Page) => Promise<void>;
}

/** Opens a page in `browser`, or in one of its contexts (its own cookies: another person at another computer). */
export async function openDashboard(browser: Pick<Browser, 'newPage'>, serverUrl: string, options: OpenOptions = {}): Promise<DashboardPage> {
  const page = await browser.newPage();
  const { config } = options;
  if (config) {
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === `/${DASHBOARD_CONFIG_FILE}`) {
        void request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(config) });
      } else void request.continue();
    });
  }
  // A wait that never comes true fails with its selector or condition, well before the test's own timeout.
  page.setDefaultTimeout(WAIT_MS);
  const width = options.width ?? 1280;
  await page.setViewport({ width, height: width < 600 ? 800 : 900 });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(String(err)));
  await options.beforeLoad?.(page);
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

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | undefined;

/**
 * Runs axe-core on the page as it is now and returns its serious and critical violations, each as
 * "<rule>: <help> (<selectors>)", so a failing assertion says what to fix.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not apply to: an added <script>
  // tag (page.addScriptTag) is inline script, which the dashboard's CSP rightly blocks.
  axeSource ??= readFileSync(AXE_PATH, 'utf8');
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`);
}

/**
 * The page's problems apart from Chromium's console line for an API answer a test provoked on
 * purpose (400 for a bad field, 401 for a wrong token, 404 for results not computed yet). Anything
 * else (another status, a script error, a CSP violation) still counts.
 */
export function problemsApartFrom(problems: string[], ...statuses: number[]): string[] {
  return problems.filter((p) => !statuses.some((s) => p.startsWith(`Failed to load resource: the server responded with a status of ${s} `)));
}

/** Sets an input's value as typing would: the form's state follows the input event. */
export const setInputValue = (page: Page, selector: string, value: string) =>
  page.$eval(
    selector,
    (el: any, v) => {
      el.value = v;
      el.dispatchEvent(new (globalThis as any).Event('input', { bubbles: true }));
    },
    value,
  );

/**
 * Waits for the visible, enabled button whose text is exactly `name`, standing still (at the same
 * place at two checks 50 ms apart), and clicks it. Puppeteer clicks where it measured the button:
 * content arriving above it meanwhile (a tile's answer, a list) moves it from under the click.
 */
export async function clickButton(page: Page, name: string): Promise<void> {
  const handle = await page.waitForFunction(
    (n) => {
      const g = globalThis as any;
      const button = [...g.document.querySelectorAll('button')].find((b: any) => b.textContent.trim() === n && !b.disabled && b.offsetParent !== null);
      if (!button) return undefined;
      const r = button.getBoundingClientRect();
      const at = `${r.x},${r.y},${r.width},${r.height}`;
      g.__testButtonAt ??= new WeakMap();
      const still = g.__testButtonAt.get(button) === at;
      g.__testButtonAt.set(button, at);
      return still ? button : undefined;
    },
    { polling: 50 },
    name,
  );
  await (handle as any).click();
}

/**
 * A local server and a Chromium for the test file (started in beforeAll, stopped in afterAll); read
 * `stack` and `browser` inside tests.
 */
export function useDashboardServer(): { readonly stack: TestStack; readonly browser: Browser } {
  const state = {} as { stack: TestStack; browser: Browser };
  beforeAll(async () => {
    state.stack = await startTestStack();
    state.browser = await launchBrowser();
  });
  afterAll(async () => {
    await state.browser?.close();
    await state.stack?.stop();
  });
  return state;
}

export interface DashboardProject {
  readonly stack: TestStack;
  readonly project: string;
  /** An unthrottled API key of the project, for sending events. */
  readonly key: string;
  readonly browser: Browser;
  /** A page at 1280 px, signed in. */
  readonly dash: DashboardPage;
}

export interface DashboardProjectOptions extends Partial<LocalServerOptions> {
  /** Runs once the project exists, before the page opens (e.g. events its forms should offer). */
  beforeOpen?: (project: Omit<DashboardProject, 'browser' | 'dash'>) => Promise<void>;
}

/**
 * A local server with a project called `name` and a key, a Chromium and a signed-in page at 1280 px
 * for the test file (started in beforeAll, stopped in afterAll); read the fields inside tests.
 */
export function useDashboardProject(name: string, options: DashboardProjectOptions = {}): DashboardProject {
  const { beforeOpen, ...serverOptions } = options;
  const state = {} as { -readonly [K in keyof DashboardProject]: DashboardProject[K] };
  beforeAll(async () => {
    ({ stack: state.stack, project: state.project, key: state.key } = await startTestProject(name, serverOptions));
    state.browser = await launchBrowser();
    await beforeOpen?.(state);
    state.dash = await openDashboard(state.browser, state.stack.url, { width: 1280 });
  });
  afterAll(async () => {
    await state.browser?.close();
    await state.stack?.stop();
  });
  return state;
}

/**
 * Presses the results page's Refresh and waits until it is done: the refresh POST answered, the
 * results re-read after it, and the button enabled again. Reading the page before that would read
 * the results from before the refresh.
 */
export async function refreshResults(page: Page): Promise<void> {
  let refreshed = false;
  const reread = page.waitForResponse((response) => {
    const { pathname } = new URL(response.url());
    const method = response.request().method();
    if (method === 'POST' && pathname.endsWith('/results/refresh')) refreshed = true;
    return refreshed && method === 'GET' && pathname.endsWith('/results');
  });
  await clickButton(page, 'Refresh');
  await reread;
  await page.waitForFunction(() => {
    const button = [...(globalThis as any).document.querySelectorAll('button')].find((b: any) => b.textContent.trim() === 'Refresh');
    return button !== undefined && !button.disabled;
  });
}

/** Opens the dashboard signed out, presses "Sign in with single sign-on" and signs in at the issuer's page. */
export async function signInThroughIssuer(context: BrowserContext, url: string, email: string, group: string, screenshot?: string): Promise<DashboardPage> {
  const dash = await openDashboard(context, url, { signIn: false });
  const { page } = dash;
  await page.waitForSelector('button ::-p-text(Sign in with single sign-on)');
  if (screenshot) {
    await dash.screenshot(screenshot);
    expect(await seriousA11yViolations(page)).toEqual([]);
  }
  await Promise.all([page.waitForNavigation(), page.click('button ::-p-text(Sign in with single sign-on)')]);
  await page.waitForSelector(`input[name="${LOGIN_FORM.email}"]`);
  await page.type(`input[name="${LOGIN_FORM.email}"]`, email);
  await page.select(`select[name="${LOGIN_FORM.group}"]`, group);
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  await page.waitForSelector('.who');
  return dash;
}

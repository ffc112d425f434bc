/**
 * Every page with a write control, walked by a person of each role signed in through the test issuer:
 * a control shows (and is enabled) exactly when the role may use it (the role its route declares in
 * lambdas/routes.ts), a page whose controls are missing says which role they need, and the page never
 * sends a request the API would refuse (no 403 in the console).
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { roleAllows, type AdminRole } from '../../lambdas/domain/admin-role';
import { describeBrowser, launchBrowser } from '../helpers/browser';
import { problemsApartFrom, signInThroughIssuer, type DashboardPage } from '../helpers/dashboard';
import { UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { startSignInStack } from '../helpers/oidc-issuer';

const ROLES: AdminRole[] = ['viewer', 'analyst', 'experimenter', 'admin'];

/**
 * The visible buttons a person can press (shown and not disabled, its own or a fieldset's), and the
 * form fields (by #id) they can use.
 */
const pressable = (page: Page) =>
  page.$$eval('button', (bs) =>
    bs
      .filter((b) => b.offsetParent !== null && !(b as unknown as { matches(s: string): boolean }).matches(':disabled'))
      .map((b) => b.textContent?.trim() ?? ''),
  );
const usableFields = (page: Page, ids: string[]) =>
  page.$$eval(ids.join(', ') || 'no-such-element', (els) =>
    els
      .filter(
        (el) => (el as unknown as { offsetParent: unknown }).offsetParent !== null && !(el as unknown as { matches(s: string): boolean }).matches(':disabled'),
      )
      .map((el) => `#${el.id}`),
  );
const readOnlyNote = (page: Page) => page.$eval('main', (m) => m.querySelector('.read-only')?.textContent?.trim() ?? null);

interface PageCheck {
  name: string;
  route: (ids: Ids) => string;
  /** Shown once the page's data is in, so a missing control is missing, not still loading. */
  ready: string | ((page: Page) => Promise<unknown>);
  /** The role the page's write controls need (their routes' role). */
  needs: AdminRole;
  /** Button names, and form fields as #id. */
  controls: string[];
}

interface Ids {
  projectId: string;
  draftId: string;
  runningId: string;
  dashboardId: string;
}

const PAGES: PageCheck[] = [
  { name: 'projects', route: () => '/projects', ready: 'a.card-title ::-p-text(Role shop)', needs: 'admin', controls: ['Create project', 'Save time zone'] },
  { name: 'keys', route: (i) => `/projects/${i.projectId}/keys`, ready: 'td ::-p-text(Role key)', needs: 'admin', controls: ['Create key', 'Revoke'] },
  {
    name: 'experiments',
    route: (i) => `/projects/${i.projectId}/experiments`,
    ready: 'td ::-p-text(Draft test)',
    needs: 'experimenter',
    controls: ['Create experiment'],
  },
  {
    name: 'experiment-draft',
    route: (i) => `/projects/${i.projectId}/experiments/${i.draftId}`,
    ready: (page) => page.waitForFunction(() => (globalThis as any).document.querySelector('#experiment-name')?.value === 'Draft test'),
    needs: 'experimenter',
    controls: ['Start', 'Add variant', 'Add metric', 'Calculate'],
  },
  {
    name: 'experiment-running',
    route: (i) => `/projects/${i.projectId}/experiments/${i.runningId}`,
    ready: 'h1 ::-p-text(Running test)',
    needs: 'experimenter',
    controls: ['Stop'],
  },
  {
    name: 'results',
    route: (i) => `/projects/${i.projectId}/experiments/${i.runningId}/results`,
    ready: 'h1 ::-p-text(Results: Running test)',
    needs: 'experimenter',
    controls: ['Refresh'],
  },
  { name: 'insights', route: (i) => `/projects/${i.projectId}/insights`, ready: 'a ::-p-text(Role trend)', needs: 'analyst', controls: ['Delete'] },
  { name: 'trends', route: (i) => `/projects/${i.projectId}/insights/trends`, ready: 'h1 ::-p-text(Trends)', needs: 'analyst', controls: ['Show trends'] },
  { name: 'funnels', route: (i) => `/projects/${i.projectId}/insights/funnels`, ready: 'h1 ::-p-text(Funnels)', needs: 'analyst', controls: ['Show funnel'] },
  {
    name: 'retention',
    route: (i) => `/projects/${i.projectId}/insights/retention`,
    ready: 'h1 ::-p-text(Retention)',
    needs: 'analyst',
    controls: ['Show retention'],
  },
  {
    name: 'dashboards',
    route: (i) => `/projects/${i.projectId}/dashboards`,
    ready: 'a ::-p-text(Role board)',
    needs: 'analyst',
    controls: ['Create dashboard'],
  },
  {
    name: 'person',
    route: (i) => `/projects/${i.projectId}/users/role-person`,
    ready: 'ol.events',
    needs: 'admin',
    controls: ['Export', 'Delete this person'],
  },
  { name: 'deletions', route: (i) => `/projects/${i.projectId}/deletions`, ready: 'h1 ::-p-text(Deletions)', needs: 'admin', controls: [] },
  {
    name: 'dashboard',
    route: (i) => `/projects/${i.projectId}/dashboards/${i.dashboardId}`,
    ready: 'h1 ::-p-text(Role board)',
    needs: 'analyst',
    controls: ['Rename', 'Remove', 'Delete dashboard', '#dashboard-range', '#dashboard-add'],
  },
];

describeBrowser('each role sees and does only what it may, on every page', () => {
  let stack: TestStack;
  let stop: () => Promise<void>;
  let browser: Browser;
  let ids: Ids;
  beforeAll(async () => {
    ({ stack, stop } = await startSignInStack());
    browser = await launchBrowser();
    const projectId = await stack.createProject('Role shop');
    await stack.admin('POST', `/admin/v1/projects/${projectId}/keys`, { label: 'Role key' });
    const draft = await stack.admin('POST', `/admin/v1/projects/${projectId}/experiments`, { name: 'Draft test', goal_event: 'purchase' });
    const running = await stack.admin('POST', `/admin/v1/projects/${projectId}/experiments`, { name: 'Running test', goal_event: 'purchase' });
    expect((await stack.admin('POST', `/admin/v1/projects/${projectId}/experiments/${running.body.id}/start`)).status).toBe(200);
    const saved = await stack.admin('POST', `/admin/v1/projects/${projectId}/saved-insights`, {
      name: 'Role trend',
      kind: 'trends',
      definition: { series: [{ event: 'purchase', measure: 'events' }], interval: 'day', date_from: '2026-11-01', date_to: '2026-11-07' },
    });
    expect(saved.status).toBe(201);
    // A person, whose page holds "Export" and "Delete this person".
    const key = await stack.createKey(projectId, UNTHROTTLED_KEY);
    expect((await stack.post('/v1/events', key, { events: [{ name: 'view', user_id: 'role-person', timestamp: '2026-11-01T10:00:00Z' }] })).status).toBe(204);
    for (let i = 0; (await stack.admin('GET', `/admin/v1/projects/${projectId}/events?user_id=role-person`)).body.events.length === 0; i++) {
      if (i > 100) throw new Error('the event of role-person was not listed');
      await new Promise((r) => setTimeout(r, 50));
    }
    const board = await stack.admin('POST', `/admin/v1/projects/${projectId}/dashboards`, { name: 'Role board' });
    expect(
      (await stack.admin('PATCH', `/admin/v1/projects/${projectId}/dashboards/${board.body.id}`, { tiles: [{ saved_insight_id: saved.body.id }] })).status,
    ).toBe(200);
    ids = { projectId, draftId: draft.body.id, runningId: running.body.id, dashboardId: board.body.id };
  });
  afterAll(async () => {
    await browser?.close();
    await stop?.();
  });

  it.each(ROLES)('%s', async (role) => {
    const context = await browser.createBrowserContext();
    const dash: DashboardPage = await signInThroughIssuer(context, stack.url, `${role}@example.com`, role);
    const { page } = dash;
    const seen: Record<string, { shown: string[]; note: string | null }> = {};
    for (const check of PAGES) {
      await dash.go(check.route(ids));
      await (typeof check.ready === 'string' ? page.waitForSelector(check.ready) : check.ready(page));
      await page.waitForNetworkIdle({ idleTime: 200 });
      const buttons = [
        ...(await pressable(page)),
        ...(await usableFields(
          page,
          check.controls.filter((c) => c.startsWith('#')),
        )),
      ];
      seen[check.name] = { shown: check.controls.filter((c) => buttons.includes(c)), note: await readOnlyNote(page) };
      if (role === 'viewer' || role === 'analyst') await dash.screenshot(`roles-${role}-${check.name}`);
    }
    const expected = Object.fromEntries(
      PAGES.map((check) => [
        check.name,
        roleAllows(role, check.needs)
          ? { shown: check.controls, note: null }
          : { shown: [], note: expect.stringMatching(new RegExp(`^You are signed in as ${role}: to .+ you need the ${check.needs} role`)) },
      ]),
    );
    expect(seen).toEqual(expected);
    // The Audit log link and the project's Deletions section are for admins only.
    expect((await page.$('a ::-p-text(Audit log)')) !== null).toBe(role === 'admin');
    expect((await page.$('nav a ::-p-text(Deletions)')) !== null).toBe(role === 'admin');
    // Nothing the role may not do was sent: no 403 (nor any other console error) on any page; the 404
    // is the results page asking for results not computed yet.
    expect(problemsApartFrom(dash.problems, 404)).toEqual([]);
    await context.close();
  });
});

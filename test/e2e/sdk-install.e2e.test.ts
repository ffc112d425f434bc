/**
 * Installing the SDK from the deployment, as an app team would, against the local server:
 * - `npm install <the served tarball's URL>` into an empty project (no registry: npm is pointed at an
 *   address where nothing answers, so this passes offline), bundled with esbuild, and an event sent
 *   from Chromium by the bundle, from another origin;
 * - the script tag with its integrity attribute, from another origin; a wrong hash is refused.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SdkManifest } from '../../lambdas/contract/dashboard';
import { sriHash } from '../../sdk/scripts/distribution';
import { describeBrowser, launchBrowser, servePages } from '../helpers/browser';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { until } from '../helpers/until';

const run = promisify(execFile);
const sdkVersion = (JSON.parse(readFileSync(join(import.meta.dirname, '../../sdk/package.json'), 'utf8')) as { version: string }).version;

let stack: TestStack;
let project: string;
let key: string;
let manifest: SdkManifest;
const work = mkdtempSync(join(tmpdir(), 'tally-sdk-install-'));

beforeAll(async () => {
  stack = await startTestStack();
  project = await stack.createProject('installed app');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  manifest = (await (await fetch(`${stack.url}/sdk/manifest.json`)).json()) as SdkManifest;
});
afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the SDK files the server serves', () => {
  it('name the package version, with the script’s sha384 and the tarball, any origin allowed', async () => {
    expect(manifest).toEqual({
      version: sdkVersion,
      script: `sdk/${sdkVersion}/tally.min.js`,
      integrity: expect.stringMatching(/^sha384-[A-Za-z0-9+/]{64}$/),
      package: `sdk/${sdkVersion}/tally-sdk-${sdkVersion}.tgz`,
    });
    const script = await fetch(`${stack.url}/${manifest.script}`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('access-control-allow-origin')).toBe('*');
    expect(script.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const body = Buffer.from(await script.arrayBuffer());
    expect(sriHash(body)).toBe(manifest.integrity);
    expect(body.equals(readFileSync(join(import.meta.dirname, '../../sdk/dist/tally.min.js')))).toBe(true);
    // The same bytes twice (a lockfile records the tarball's integrity).
    const tgz = async () => Buffer.from(await (await fetch(`${stack.url}/${manifest.package}`)).arrayBuffer());
    expect((await tgz()).equals(await tgz())).toBe(true);
    expect((await fetch(`${stack.url}/sdk/0.0.0/tally.min.js`)).status).toBe(404);
  });
});

/** `npm install <url>` in `dir` as an app team runs it, with no registry reachable (npm is pointed at an address where nothing answers). */
async function npmInstall(dir: string, url: string): Promise<void> {
  writeFileSync(join(work, 'npmrc'), '');
  // Asynchronous: the server answering npm runs in this process.
  await run(
    'npm',
    [
      'install',
      url,
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--cache',
      join(work, 'cache'),
      '--userconfig',
      join(work, 'npmrc'),
      '--registry',
      'http://127.0.0.1:9/',
    ],
    { cwd: dir, timeout: 60_000 },
  );
}

describe("the README's own lines", () => {
  it('install the package into an empty project and send an event from Node', async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    // The install line names the package file the server serves now (README.md keeps its version current).
    const install = /```sh\nnpm init -y\nnpm install (\S+)/.exec(readme);
    expect(install?.[1]).toBe(`http://127.0.0.1:3000/${manifest.package}`);
    const app = /Save this as `app\.mjs`[^\n]*\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(app).toContain("import { init } from '@tally/sdk';");

    const dir = join(work, 'readme-app');
    mkdirSync(dir);
    await run('npm', ['init', '-y'], { cwd: dir });
    await npmInstall(dir, install![1]!.replace('http://127.0.0.1:3000', stack.url));
    writeFileSync(join(dir, 'app.mjs'), app!.replaceAll('http://127.0.0.1:3000', stack.url));
    const { stdout } = await run(process.execPath, ['app.mjs'], { cwd: dir, env: { ...process.env, TALLY_KEY: key }, timeout: 30_000 });
    expect(stdout.trim()).toBe('{ pending: 0 }');
    const sent = stack.rawEvents(project).find((e) => e.name === 'app_started');
    expect(sent?.properties).toEqual({ source: 'readme' });
  }, 120_000);
});

describeBrowser('an app installs the SDK from the deployment', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  /** Waits until the raw event files hold an event named `name`. */
  const stored = (name: string) => until(() => stack.rawEvents(project).find((e) => e.name === name), 15_000, `event ${name}`);

  it('npm install <url> into an empty project, bundle it, and send an event from the browser', async () => {
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    const url = `${stack.url}/${manifest.package}`;
    await npmInstall(app, url);
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toEqual({ '@tally/sdk': url });
    expect(JSON.parse(readFileSync(join(app, 'node_modules/@tally/sdk/package.json'), 'utf8')).version).toBe(sdkVersion);
    expect(existsSync(join(app, 'node_modules/@tally/sdk/dist/types/sdk/src/index.d.ts'))).toBe(true);
    // Node too: CommonJS from the installed package.
    expect((await run(process.execPath, ['-e', "console.log(typeof require('@tally/sdk').init)"], { cwd: app })).stdout.trim()).toBe('function');

    writeFileSync(
      join(app, 'main.js'),
      [
        "import { init } from '@tally/sdk';",
        `const tally = init({ apiKey: ${JSON.stringify(key)}, baseURL: ${JSON.stringify(stack.url)} });`,
        "tally.track('installed_from_tarball', { via: 'npm' });",
        'tally.flush().then((result) => (globalThis.flushed = result));',
      ].join('\n'),
    );
    const bundle = await build({
      entryPoints: [join(app, 'main.js')],
      absWorkingDir: app,
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      logLevel: 'silent',
    });
    const pages = await servePages({
      '/index.html': '<!doctype html><html><head><script src="/main.js"></script></head><body>app</body></html>',
      '/main.js': bundle.outputFiles[0]!.text,
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${pages.origin}/index.html`);
      expect(await page.waitForFunction(() => (globalThis as any).flushed, { timeout: 15_000 }).then((h) => h.jsonValue())).toEqual({ pending: 0 });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await pages.close();
    }
    expect((await stored('installed_from_tarball')).properties).toEqual({ via: 'npm' });
  }, 120_000);

  it('the script tag with its integrity attribute loads from another origin; a wrong hash is refused', async () => {
    const tag = (integrity: string) =>
      `<!doctype html><html><head><script src="${stack.url}/${manifest.script}" integrity="${integrity}" crossorigin="anonymous"></script></head><body>
<script src="/app.js"></script></body></html>`;
    const pages = await servePages({
      '/good.html': tag(manifest.integrity),
      '/bad.html': tag(`sha384-${'A'.repeat(64)}`),
      '/app.js': [
        'if (globalThis.Tally) {',
        `  const tally = Tally.init({ apiKey: ${JSON.stringify(key)}, baseURL: ${JSON.stringify(stack.url)} });`,
        "  tally.track('installed_from_script_tag');",
        '  tally.flush().then((result) => (globalThis.flushed = result));',
        '} else globalThis.flushed = "no Tally";',
      ].join('\n'),
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${pages.origin}/good.html`);
      expect(await page.waitForFunction(() => (globalThis as any).flushed, { timeout: 15_000 }).then((h) => h.jsonValue())).toEqual({ pending: 0 });
      await page.goto(`${pages.origin}/bad.html`);
      expect(await page.waitForFunction(() => (globalThis as any).flushed, { timeout: 15_000 }).then((h) => h.jsonValue())).toBe('no Tally');
      await page.close();
    } finally {
      await pages.close();
    }
    await stored('installed_from_script_tag');
  });
});

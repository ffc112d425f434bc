/**
 * Real-browser tests: Debian's Chromium driven by puppeteer-core (which never downloads a browser).
 *
 * When no Chromium is found, browser tests are skipped with one line saying how to install it, except
 * under CI=true, where a missing browser is a failure: CI must run them (.ci/run installs Chromium).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { describeWithTool, type NeededTool } from './needs-tool';

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const MISSING = 'Browser tests skipped: no Chromium found. Install it with `apt-get install chromium` (or set TALLY_CHROMIUM)';

/** Path of a Chromium to drive: $TALLY_CHROMIUM, else /usr/bin/chromium, else /usr/bin/chromium-browser; undefined when none. */
export function chromiumPath(): string | undefined {
  const configured = process.env.TALLY_CHROMIUM;
  if (configured) return existsSync(configured) ? configured : undefined;
  return CHROMIUM_CANDIDATES.find((path) => existsSync(path));
}

const CHROMIUM: NeededTool = {
  id: 'browser',
  missing: () => {
    if (chromiumPath()) return undefined;
    const where = process.env.TALLY_CHROMIUM
      ? `TALLY_CHROMIUM=${process.env.TALLY_CHROMIUM} does not exist`
      : `none of ${CHROMIUM_CANDIDATES.join(', ')} exists`;
    return `Chromium is missing (${where})`;
  },
  notice: MISSING,
  install: 'Install it with `apt-get install -y chromium` (.ci/run does) or set TALLY_CHROMIUM.',
};

/** `describe` when a Chromium is found; otherwise, under CI=true, a describe whose single test fails saying Chromium is missing; elsewhere describe.skip, printing once: "Browser tests skipped: no Chromium found. Install it with `apt-get install chromium` (or set TALLY_CHROMIUM)". */
export const describeBrowser = (name: string, fn: () => void): void => describeWithTool(CHROMIUM, name, fn);

/** puppeteer-core launch, headless, with --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync and a fresh temporary --user-data-dir (removed on close). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(MISSING);
  const userDataDir = mkdtempSync(join(tmpdir(), 'tally-chromium-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      // Root in CI containers has no user namespace for the sandbox; the pages are our own fixtures.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${userDataDir}`,
      ],
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  const close = browser.close.bind(browser);
  browser.close = async () => {
    try {
      await close();
    } finally {
      rmSync(userDataDir, { recursive: true, force: true });
    }
  };
  return browser;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** A static HTTP server on 127.0.0.1:<free port>, a different origin from the API, serving `files` (URL path -> content; content-type from the extension). */
export async function servePages(files: Record<string, string | Uint8Array>): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://pages').pathname;
    const content = Object.hasOwn(files, path) ? files[path] : undefined;
    if (content === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`No page at ${path}`);
      return;
    }
    const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : content);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

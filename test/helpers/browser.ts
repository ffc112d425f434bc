/** Real headless Chromium for end-to-end tests: finding it, launching it, and serving test pages from another origin. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import puppeteer from 'puppeteer-core';
import { describe, it } from 'vitest';

/** Path of a Chromium to drive: $TALLY_CHROMIUM, else /usr/bin/chromium, else /usr/bin/chromium-browser; undefined when none. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.TALLY_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

let skipNoticePrinted = false;

/**
 * `describe` when a Chromium is found; otherwise, under CI=true, a describe whose single test fails
 * saying Chromium is missing; elsewhere describe.skip, printing the install hint once.
 */
export const describeBrowser = (name: string, fn: () => void): void => {
  if (chromiumPath()) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs Chromium', () => {
        throw new Error('Chromium is missing: install it with `apt-get install chromium` (or set TALLY_CHROMIUM)');
      });
    });
    return;
  }
  if (!skipNoticePrinted) {
    skipNoticePrinted = true;
    console.warn('Browser tests skipped: no Chromium found. Install it with `apt-get install chromium` (or set TALLY_CHROMIUM)');
  }
  describe.skip(name, fn);
};

/** puppeteer-core launch, headless, with a fresh temporary profile (removed on close). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('No Chromium found: install it with `apt-get install chromium` (or set TALLY_CHROMIUM)');
  const userDataDir = mkdtempSync(join(tmpdir(), 'tally-chromium-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
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

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.css': 'text/css',
};

/** A static HTTP server on 127.0.0.1:<free port>, a different origin from the API, serving `files` (URL path -> content). */
export async function servePages(files: Record<string, string | Uint8Array>): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://pages').pathname;
    const body = files[path];
    if (body === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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

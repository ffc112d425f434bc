/**
 * The SDK example page, served by the local server only (API Gateway has no such route): /example/,
 * its script and style, and the script-tag build it loads, so `npm start` shows a browser sending
 * events and getting variants with nothing else to set up. Every answer carries the dashboard's
 * security headers (LOCAL_PAGE_SECURITY_HEADERS: its Content-Security-Policy, nosniff, no framing,
 * no referrer): the page is on the API's origin, so its script and style are files, never inline.
 * The files are read on each request, so a rebuilt SDK shows without a restart.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { LOCAL_PAGE_SECURITY_HEADERS } from '../contract/dashboard';

export const EXAMPLE_PATH = '/example/';

const exampleFile = (name: string) => fileURLToPath(new URL(`../../sdk/example/${name}`, import.meta.url));
const MISSING_EXAMPLE = 'The example page is missing from sdk/example/.';

const FILES: Record<string, { file: string; type: string; missing: string }> = {
  '/example/': { file: exampleFile('index.html'), type: 'text/html; charset=utf-8', missing: MISSING_EXAMPLE },
  '/example/example.js': { file: exampleFile('example.js'), type: 'text/javascript; charset=utf-8', missing: MISSING_EXAMPLE },
  '/example/example.css': { file: exampleFile('example.css'), type: 'text/css; charset=utf-8', missing: MISSING_EXAMPLE },
  '/example/tally.min.js': {
    file: fileURLToPath(new URL('../../sdk/dist/tally.min.js', import.meta.url)),
    type: 'text/javascript; charset=utf-8',
    missing: 'The SDK is not built: run `npm run build -w @tally/sdk` (npm start does it first).',
  },
};

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8', ...LOCAL_PAGE_SECURITY_HEADERS };

/** Answers GET /example/…; false for any other request, which the API then handles. */
export async function serveExample(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
  if (req.method !== 'GET' || (pathname !== '/example' && !pathname.startsWith(EXAMPLE_PATH))) return false;
  req.resume();
  if (pathname === '/example') {
    res.writeHead(308, { Location: EXAMPLE_PATH, ...LOCAL_PAGE_SECURITY_HEADERS }).end();
    return true;
  }
  const entry = FILES[pathname];
  if (!entry) {
    res.writeHead(404, TEXT).end(`No file ${pathname}`);
    return true;
  }
  try {
    const body = await readFile(entry.file);
    res.writeHead(200, { 'Content-Type': entry.type, 'Content-Length': body.length, 'Cache-Control': 'no-store', ...LOCAL_PAGE_SECURITY_HEADERS }).end(body);
  } catch {
    res.writeHead(404, TEXT).end(entry.missing);
  }
  return true;
}

/**
 * The SDK example page, served by the local server only (API Gateway has no such route): /example/
 * and the script-tag build it loads, so `npm start` shows a browser sending events and getting
 * variants with nothing else to set up. The files are read on each request, so a rebuilt SDK shows
 * without a restart.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export const EXAMPLE_PATH = '/example/';

const FILES: Record<string, { file: string; type: string; missing: string }> = {
  '/example/': {
    file: fileURLToPath(new URL('../../sdk/example/index.html', import.meta.url)),
    type: 'text/html; charset=utf-8',
    missing: 'The example page is missing from sdk/example/.',
  },
  '/example/example.js': {
    file: fileURLToPath(new URL('../../sdk/example/example.js', import.meta.url)),
    type: 'text/javascript; charset=utf-8',
    missing: 'The example page is missing from sdk/example/.',
  },
  '/example/example.css': {
    file: fileURLToPath(new URL('../../sdk/example/example.css', import.meta.url)),
    type: 'text/css; charset=utf-8',
    missing: 'The example page is missing from sdk/example/.',
  },
  '/example/tally.min.js': {
    file: fileURLToPath(new URL('../../sdk/dist/tally.min.js', import.meta.url)),
    type: 'text/javascript; charset=utf-8',
    missing: 'The SDK is not built: run `npm run build -w @tally/sdk` (npm start does it first).',
  },
};

/** Answers GET /example/…; false for any other request, which the API then handles. */
export async function serveExample(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
  if (req.method !== 'GET' || (pathname !== '/example' && !pathname.startsWith(EXAMPLE_PATH))) return false;
  req.resume();
  if (pathname === '/example') {
    res.writeHead(308, { Location: EXAMPLE_PATH }).end();
    return true;
  }
  const entry = FILES[pathname];
  if (!entry) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`No file ${pathname}`);
    return true;
  }
  try {
    const body = await readFile(entry.file);
    res.writeHead(200, { 'Content-Type': entry.type, 'Content-Length': body.length, 'Cache-Control': 'no-store' }).end(body);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(entry.missing);
  }
  return true;
}

/**
 * The SDK files on the local server, as the dashboard's distribution serves them on AWS
 * (sdk/scripts/distribution.ts): GET /sdk/manifest.json, /sdk/<version>/tally.min.js and
 * /sdk/<version>/tally-sdk-<version>.tgz. Read from sdk/dist on each request, so a rebuilt SDK shows
 * without a restart (npm start builds it first). Any origin may load them (CORS `*`, as an app's page
 * loading the script with its integrity attribute needs), and nothing is cached.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sdkDistribution } from '../../sdk/scripts/distribution';
import { SDK_FILE_HEADERS } from '../contract/dashboard';

export const SDK_PATH = '/sdk/';

/** Answers GET and HEAD /sdk/…; false for any other request, which the API then handles. */
export async function serveSdk(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !pathname.startsWith(SDK_PATH)) return false;
  req.resume();
  let files;
  try {
    files = sdkDistribution().files;
  } catch (err) {
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end((err as Error).message);
    return true;
  }
  const file = files.find((f) => `/${f.path}` === pathname);
  if (!file) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...SDK_FILE_HEADERS }).end(`No SDK file ${pathname}; see ${SDK_PATH}manifest.json`);
    return true;
  }
  res.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': file.body.length, 'Cache-Control': 'no-cache', ...SDK_FILE_HEADERS });
  res.end(req.method === 'HEAD' ? undefined : file.body);
  return true;
}

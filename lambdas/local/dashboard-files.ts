/**
 * The dashboard on the local server: GET / (index.html), /assets/… (hashed, cacheable forever) and
 * /config.json (the API is this origin; the sign-in issuer when TALLY_OIDC_ISSUER is set), each with the dashboard's Content-Security-Policy,
 * as CloudFront serves them on AWS. Built once, on the first request for it, into
 * <dataDir>/dashboard, so starting a server (the tests start many) costs nothing until a page is
 * opened.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { buildDashboardSync } from '../../dashboard/build';
import type { OidcConfig } from '../adapters/oidc-verifier';
import { DASHBOARD_CONFIG_FILE, localPageSecurityHeaders, signInConnectOrigins, type DashboardConfig } from '../contract/dashboard';
import { formatGroupRoles } from '../domain/group-roles';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

export function dashboardFiles(dataDir: string, oidc?: OidcConfig) {
  const outDir = join(dataDir, 'dashboard');
  const config: DashboardConfig = oidc
    ? { signIn: { issuer: oidc.issuer, clientId: oidc.audience, groupsClaim: oidc.groupsClaim, groupRoles: formatGroupRoles(oidc.groupRoles) } }
    : {};
  const SECURITY_HEADERS = localPageSecurityHeaders(oidc ? signInConnectOrigins(oidc.issuer, oidc.connectOrigins) : []);
  let built = false;

  /** Answers a dashboard request; false for any other request, which the API then handles. */
  return async function serveDashboard(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const file = pathname === '/' || pathname === '/index.html' ? 'index.html' : pathname.startsWith('/assets/') ? pathname.slice(1) : null;
    if (pathname === `/${DASHBOARD_CONFIG_FILE}`) {
      req.resume();
      res.writeHead(200, { 'Content-Type': TYPES['.json']!, 'Cache-Control': 'no-store', ...SECURITY_HEADERS }).end(JSON.stringify(config));
      return true;
    }
    if (file === null || file.includes('..') || file.includes('\\')) return false;
    req.resume();
    if (!built) {
      buildDashboardSync(outDir);
      built = true;
    }
    let body: Buffer;
    try {
      body = await readFile(join(outDir, file));
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`No dashboard file ${pathname}`);
      return true;
    }
    const type = TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
    const cache = file === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': cache, ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}

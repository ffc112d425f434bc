/**
 * Where the API is: config.json next to index.html (written by the stack on AWS), else this origin
 * (npm start serves the dashboard and the API together).
 */
import { DASHBOARD_CONFIG_FILE, type DashboardConfig, type DashboardSignIn } from '../../lambdas/contract/dashboard';

export interface Endpoints {
  /** The admin API's base URL, ending in "/". */
  apiBase: string;
  /** The {base_url} apps send events to (the install snippet), ending in "/": CloudFront's URL when it fronts the API. */
  baseUrl: string;
  /** The single sign-on issuer, when the deployment has one (else the admin token is the only sign-in). */
  signIn?: DashboardSignIn;
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
const given = (value: unknown): value is string => typeof value === 'string' && value !== '';

export async function loadEndpoints(): Promise<Endpoints> {
  let config: DashboardConfig = {};
  try {
    const response = await fetch(DASHBOARD_CONFIG_FILE, { cache: 'no-store' });
    if (response.ok) config = (await response.json()) as DashboardConfig;
  } catch {
    // No config file: the API is served from this origin (npm start).
  }
  const apiBase = given(config.apiUrl) ? withSlash(config.apiUrl) : new URL('/', location.href).href;
  const signIn = config.signIn && given(config.signIn.issuer) && given(config.signIn.clientId) ? config.signIn : undefined;
  return { apiBase, baseUrl: given(config.baseUrl) ? withSlash(config.baseUrl) : apiBase, ...(signIn ? { signIn } : {}) };
}

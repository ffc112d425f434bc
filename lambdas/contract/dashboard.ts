/**
 * What the dashboard, the local server and the CDK app agree on: where the dashboard finds the API,
 * where the SDK files are, and the Content-Security-Policy every dashboard file is served with
 * (locally by npm start, on AWS by CloudFront's response headers policy).
 */

/** Served next to index.html. On AWS the stack writes it at deploy time; locally the API is the same origin. */
export const DASHBOARD_CONFIG_FILE = 'config.json';

export interface DashboardConfig {
  /** The API's base URL ending in "/", e.g. "https://abc.execute-api.eu-west-1.amazonaws.com/prod/". Absent: same origin. */
  apiUrl?: string;
  /**
   * The base URL apps send events to, for the install snippet: the stack's ApiUrl output, which is
   * CloudFront's URL when CloudFront fronts the API (geolocation needs it). Absent: apiUrl.
   */
  baseUrl?: string;
  /** People's single sign-on (docs/decisions/admin-sign-in.md). Absent: the admin token is the only sign-in. */
  signIn?: DashboardSignIn;
}

/** The OIDC issuer the dashboard signs people in with (authorization code + PKCE), as the admin API checks its tokens. */
export interface DashboardSignIn {
  /** The issuer URL (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  /** The dashboard's client ID there (the ID token's `aud`). */
  clientId: string;
  /** The token claim listing a person's groups (OIDC_GROUPS_CLAIM). */
  groupsClaim: string;
  /** group=role pairs (OIDC_GROUP_ROLES); empty: a group named like a role is that role. */
  groupRoles: string;
}

/**
 * The SDK as the deployment serves it (sdk/scripts/distribution.ts): locally by npm start, on AWS by
 * the dashboard's distribution. Paths are relative to the dashboard's origin, without a leading "/".
 */
export const SDK_MANIFEST_FILE = 'sdk/manifest.json';

export interface SdkManifest {
  /** @tally/sdk's version (sdk/package.json). */
  version: string;
  /** The script-tag build: "sdk/<version>/tally.min.js". */
  script: string;
  /** Its Subresource Integrity hash, "sha384-…", for the script tag's integrity attribute. */
  integrity: string;
  /** The npm package of the same version, for `npm install <url>`: "sdk/<version>/tally-sdk-<version>.tgz". */
  package: string;
}

/**
 * Headers of every SDK file (locally and through the dashboard's distribution): any origin may load
 * them, which a script tag with an integrity attribute (crossorigin="anonymous") needs.
 */
export const SDK_FILE_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'X-Content-Type-Options': 'nosniff',
} as const;

/**
 * Issuers whose token endpoint is on another origin than the issuer URL, from their discovery
 * documents: Google's (https://accounts.google.com/.well-known/openid-configuration) names
 * https://oauth2.googleapis.com/token. Okta, Entra ID, Auth0, Keycloak and Cognito's issuer keep it on
 * the issuer's origin (the stack adds its own Cognito pool's hosted sign-in domain).
 */
export const WELL_KNOWN_CONNECT_ORIGINS: Readonly<Record<string, readonly string[]>> = {
  'https://accounts.google.com': ['https://oauth2.googleapis.com'],
};

/**
 * The origins the dashboard's page fetches from while signing in with an issuer, for connect-src:
 * the issuer's (discovery document), a well-known issuer's token endpoint origin, and `extra` (the
 * operator's oidcConnectOrigins / TALLY_OIDC_CONNECT_ORIGINS), each once.
 */
export function signInConnectOrigins(issuer: string, extra: readonly string[] = []): string[] {
  const origin = new URL(issuer).origin;
  return [...new Set([origin, ...(WELL_KNOWN_CONNECT_ORIGINS[origin] ?? []), ...extra])];
}

/**
 * No inline script or style attribute, nothing from another origin except the API the dashboard
 * calls and the sign-in issuer's origins (its discovery document, keys and token endpoint, fetched by
 * the OIDC client). `apiOrigin` is the API's origin ("https://host"), or "'self'" when the API is the
 * same origin. The sign-in redirect itself is a top-level navigation, which no directive restricts.
 */
export function dashboardCsp(apiOrigin: string, signInOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ['connect-src', "'self'", ...(apiOrigin === "'self'" ? [] : [apiOrigin]), ...signInOrigins].join(' '),
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The security headers the local server sends with every page it serves from the API's own origin:
 * the dashboard's files (lambdas/local/dashboard-files.ts) and the SDK example page
 * (lambdas/local/example-page.ts). On AWS CloudFront's response headers policy sends the dashboard's
 * (lib/dashboard.ts), with HSTS as well, which plain http://127.0.0.1 has no use for.
 */
export function localPageSecurityHeaders(signInOrigins: readonly string[] = []): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': dashboardCsp("'self'", signInOrigins),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
}

export const LOCAL_PAGE_SECURITY_HEADERS = localPageSecurityHeaders();

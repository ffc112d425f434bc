/**
 * `npm start`'s configuration: every environment variable checked with its range before anything
 * starts, so a mistake stops the server with a message naming the variable, the value and the
 * problem (docs/configuration.md), never a stack trace or a silently different behaviour.
 * An empty value counts as unset (`TALLY_GEOIP_DB= npm start` turns geolocation off).
 */
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { GeoLookup } from '../domain/geo';
import { LOG_LEVELS, type LogLevel } from '../logging/log';
import { MmdbGeoLookup, NO_GEO } from '../adapters/geo-mmdb';
import { isOrigin } from '../contract/cors';
import { DEFAULT_GROUP_ROLES, DEFAULT_GROUPS_CLAIM, parseGroupRoles, type GroupRoles } from '../domain/group-roles';
import { KEEP_EVENTS_DAYS_TEXT, keepEventsDaysProblem } from '../domain/event-retention';
import type { OidcConfig } from '../adapters/oidc-verifier';

/** One day. Node's timers overflow above 2^31-1 ms (about 24.8 days) and then fire every millisecond. */
export const MAX_RESULTS_INTERVAL_SECONDS = 86_400;
/** An hour: a crashed request's resend waits at most this long (answered 503) before it is stored. */
export const MAX_CLAIM_LEASE_SECONDS = 3_600;
export const MIN_ADMIN_TOKEN_LENGTH = 16;
/** A bearer token travels in a header: printable ASCII, and short enough for any proxy's header limit. */
export const MAX_ADMIN_TOKEN_LENGTH = 512;

/**
 * Every variable `npm start` reads, declared once: its default (as docs/configuration.md's table
 * shows it) and what it does. readStartConfig below parses and range-checks each; bin/start.ts names
 * them in its messages through StartEnvName. The Lambda functions' variables are lambdas/lambda-env.ts.
 */
export const START_ENV = {
  PORT: { default: '3000', description: 'Port to listen on, 0 to 65535; 0 picks a free port' },
  TALLY_HOST: { default: '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface)' },
  TALLY_DATA_DIR: { default: './.tally', description: 'Where the data store, raw event files and the generated admin token live' },
  TALLY_ADMIN_TOKEN: {
    default: 'generated',
    description: `Admin API bearer token, ${MIN_ADMIN_TOKEN_LENGTH} to ${MAX_ADMIN_TOKEN_LENGTH} printable ASCII characters; unset, one is generated and kept in <data dir>/admin-token`,
  },
  TALLY_TRUST_PROXY: { default: '0', description: '1 takes the client address from X-Forwarded-For (behind a proxy); 0 uses the socket address' },
  TALLY_LOG_LEVEL: { default: 'info', description: `Log level: ${LOG_LEVELS.join(', ')}` },
  TALLY_LOG_FORMAT: {
    default: 'text',
    description: 'text: one short line per request in the terminal (method, route, status, time); json: one JSON object per line, as on AWS',
  },
  TALLY_GEOIP_DB: { default: 'unset', description: 'Path of a MaxMind City database (.mmdb); unset, geolocation is off' },
  TALLY_RESULTS_INTERVAL_SECONDS: {
    default: '60',
    description: `Seconds between results job runs, 1 to ${MAX_RESULTS_INTERVAL_SECONDS}; 0 runs it only on refresh`,
  },
  TALLY_CLAIM_LEASE_SECONDS: {
    default: '30',
    description: `Seconds a claimed event waits for its request's commit before a retry may store it, 1 to ${MAX_CLAIM_LEASE_SECONDS}`,
  },
  TALLY_KEEP_EVENTS_DAYS: {
    default: 'unset',
    description: `Keep events this many days (the compaction job removes older event days; docs/decisions/retention.md): ${KEEP_EVENTS_DAYS_TEXT}`,
  },
  TALLY_DASHBOARD_ORIGIN: {
    default: 'unset',
    description:
      'Origin of a dashboard served elsewhere (http://localhost:5173, say), the only one whose browser may call the admin API (CORS); unset, none: npm start serves the dashboard on its own origin',
  },
  TALLY_OIDC_ISSUER: {
    default: 'unset',
    description:
      "OIDC issuer URL (https://…, as its tokens' iss says it) whose sign-in tokens the admin API accepts beside the admin token; unset, the admin token only",
  },
  TALLY_OIDC_AUDIENCE: {
    default: 'unset',
    description: "With TALLY_OIDC_ISSUER (required then): the client ID sign-in tokens must be for (aud, or a Cognito access token's client_id)",
  },
  TALLY_OIDC_GROUPS_CLAIM: { default: DEFAULT_GROUPS_CLAIM, description: "With TALLY_OIDC_ISSUER: the token claim listing a person's groups" },
  TALLY_OIDC_GROUP_ROLES: {
    default: 'unset',
    description:
      'With TALLY_OIDC_ISSUER: group=role pairs, comma-separated (roles: viewer, analyst, experimenter, admin); unset, a group named like a role is that role',
  },
  TALLY_OIDC_CONNECT_ORIGINS: {
    default: 'unset',
    description:
      "With TALLY_OIDC_ISSUER: more origins the dashboard may fetch from while signing in (its CSP's connect-src), comma-separated, e.g. the token endpoint's origin when it is not the issuer's; unset, the issuer's (and Google's token endpoint for Google)",
  },
} as const satisfies Record<string, { default: string; description: string }>;

export type StartEnvName = keyof typeof START_ENV;

export interface StartConfig {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string | undefined;
  trustProxy: boolean;
  geoDbPath: string | undefined;
  geo: GeoLookup;
  resultsIntervalSeconds: number;
  claimLeaseSeconds: number;
  keepEventsDays: number | undefined;
  logLevel: LogLevel;
  logFormat: LogFormat;
  dashboardOrigin: string | undefined;
  oidc: OidcConfig | undefined;
}

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type ConfigResult = { ok: true; config: StartConfig } | { ok: false; problems: string[] };

export function readStartConfig(env: Record<string, string | undefined>): ConfigResult {
  const problems: string[] = [];
  const get = (name: StartEnvName) => (env[name] === '' ? undefined : env[name]);
  const bad = (name: StartEnvName, shown: string, problem: string) => problems.push(`${name}=${shown}: ${problem}`);
  const quote = (value: string) => JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);

  const integer = (name: StartEnvName, fallback: number, min: number, max: number, rangeText: string): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      bad(name, quote(raw), `must be a whole number ${rangeText}`);
      return fallback;
    }
    return n;
  };

  const port = integer('PORT', Number(START_ENV.PORT.default), 0, 65535, 'from 0 to 65535 (0 picks a free port)');
  const interval = integer(
    'TALLY_RESULTS_INTERVAL_SECONDS',
    Number(START_ENV.TALLY_RESULTS_INTERVAL_SECONDS.default),
    0,
    MAX_RESULTS_INTERVAL_SECONDS,
    `from 1 to ${MAX_RESULTS_INTERVAL_SECONDS} (one day), or 0 to run the results job only on refresh`,
  );

  const claimLease = integer(
    'TALLY_CLAIM_LEASE_SECONDS',
    Number(START_ENV.TALLY_CLAIM_LEASE_SECONDS.default),
    1,
    MAX_CLAIM_LEASE_SECONDS,
    `from 1 to ${MAX_CLAIM_LEASE_SECONDS}`,
  );

  const keepRaw = get('TALLY_KEEP_EVENTS_DAYS');
  const keepEventsDays = keepRaw === undefined ? undefined : /^\d+$/.test(keepRaw.trim()) ? Number(keepRaw.trim()) : NaN;
  const keepProblem = keepEventsDays === undefined ? undefined : keepEventsDaysProblem(keepEventsDays);
  if (keepProblem) bad('TALLY_KEEP_EVENTS_DAYS', quote(keepRaw!), keepProblem);

  const host = get('TALLY_HOST') ?? START_ENV.TALLY_HOST.default;
  if (isIP(host) === 0 && !/^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/.test(host)) {
    bad('TALLY_HOST', quote(host), 'must be an IP address (127.0.0.1, 0.0.0.0, ::1, …) or a host name');
  }

  const dataDir = resolve(get('TALLY_DATA_DIR') ?? START_ENV.TALLY_DATA_DIR.default);
  const dataDirKind = kindOf(dataDir);
  if (dataDirKind !== 'missing' && dataDirKind !== 'directory') bad('TALLY_DATA_DIR', quote(dataDir), `is ${dataDirKind}, not a directory`);

  const adminToken = get('TALLY_ADMIN_TOKEN');
  if (adminToken !== undefined) {
    // The value is a secret: describe it, never print it.
    if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH || adminToken.length > MAX_ADMIN_TOKEN_LENGTH) {
      bad('TALLY_ADMIN_TOKEN', `(${adminToken.length} characters)`, `must be ${MIN_ADMIN_TOKEN_LENGTH} to ${MAX_ADMIN_TOKEN_LENGTH} characters long`);
    } else if (!/^[\x21-\x7e]+$/.test(adminToken)) {
      bad('TALLY_ADMIN_TOKEN', '(hidden)', 'may hold only printable ASCII characters without spaces (it is sent in an Authorization header)');
    }
  }

  const trustProxy = get('TALLY_TRUST_PROXY') ?? START_ENV.TALLY_TRUST_PROXY.default;
  if (trustProxy !== '0' && trustProxy !== '1') bad('TALLY_TRUST_PROXY', quote(trustProxy), 'must be 0 (use the socket address) or 1 (trust X-Forwarded-For)');

  const logLevel = get('TALLY_LOG_LEVEL') ?? START_ENV.TALLY_LOG_LEVEL.default;
  if (!(LOG_LEVELS as string[]).includes(logLevel)) bad('TALLY_LOG_LEVEL', quote(logLevel), `must be one of ${LOG_LEVELS.join(', ')}`);

  const logFormat = get('TALLY_LOG_FORMAT') ?? START_ENV.TALLY_LOG_FORMAT.default;
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) bad('TALLY_LOG_FORMAT', quote(logFormat), `must be one of ${LOG_FORMATS.join(', ')}`);

  const geoDbRaw = get('TALLY_GEOIP_DB');
  const geoDbPath = geoDbRaw === undefined ? undefined : resolve(geoDbRaw);
  let geo: GeoLookup = NO_GEO;
  if (geoDbPath !== undefined) {
    const opened = openGeoDb(geoDbPath);
    if (typeof opened === 'string') bad('TALLY_GEOIP_DB', quote(geoDbPath), opened);
    else geo = opened;
  }

  const dashboardOrigin = get('TALLY_DASHBOARD_ORIGIN');
  if (dashboardOrigin !== undefined && !isOrigin(dashboardOrigin)) {
    bad(
      'TALLY_DASHBOARD_ORIGIN',
      quote(dashboardOrigin),
      'must be an origin as browsers send it: scheme, host and optional port, lower case, no path (http://localhost:5173)',
    );
  }

  const oidc = readOidc(get, bad, quote);

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    config: {
      port,
      host,
      dataDir,
      adminToken,
      trustProxy: trustProxy === '1',
      geoDbPath,
      geo,
      resultsIntervalSeconds: interval,
      claimLeaseSeconds: claimLease,
      keepEventsDays,
      logLevel: logLevel as LogLevel,
      logFormat: logFormat as LogFormat,
      dashboardOrigin,
      oidc,
    },
  };
}

/** TALLY_OIDC_*: all unset, or an issuer URL with its client ID (and optionally the groups claim and mapping). */
function readOidc(
  get: (name: StartEnvName) => string | undefined,
  bad: (name: StartEnvName, shown: string, problem: string) => void,
  quote: (value: string) => string,
): OidcConfig | undefined {
  const issuer = get('TALLY_OIDC_ISSUER');
  const audience = get('TALLY_OIDC_AUDIENCE');
  const groupsClaim = get('TALLY_OIDC_GROUPS_CLAIM');
  const mapping = get('TALLY_OIDC_GROUP_ROLES');
  const connect = get('TALLY_OIDC_CONNECT_ORIGINS');
  if (issuer === undefined) {
    for (const [name, value] of [
      ['TALLY_OIDC_AUDIENCE', audience],
      ['TALLY_OIDC_GROUPS_CLAIM', groupsClaim],
      ['TALLY_OIDC_GROUP_ROLES', mapping],
      ['TALLY_OIDC_CONNECT_ORIGINS', connect],
    ] as const) {
      if (value !== undefined) bad(name, quote(value), 'is set without TALLY_OIDC_ISSUER: set the issuer too, or unset it');
    }
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    bad('TALLY_OIDC_ISSUER', quote(issuer), "must be the issuer's URL (https://cognito-idp.<region>.amazonaws.com/<pool id>, https://<org>.okta.com, …)");
  }
  if (audience === undefined) bad('TALLY_OIDC_ISSUER', quote(issuer), 'needs TALLY_OIDC_AUDIENCE too: the client ID of the Tally dashboard at the issuer');
  const claimName = /^[\x21-\x7e]{1,256}$/;
  if (audience !== undefined && !claimName.test(audience))
    bad('TALLY_OIDC_AUDIENCE', quote(audience), 'must be the client ID as the issuer shows it: printable characters, no spaces');
  if (groupsClaim !== undefined && !claimName.test(groupsClaim)) {
    bad('TALLY_OIDC_GROUPS_CLAIM', quote(groupsClaim), 'must be a claim name such as cognito:groups or groups: printable characters, no spaces');
  }
  const groupRoles = mapping === undefined ? DEFAULT_GROUP_ROLES : parseGroupRoles(mapping);
  if ('problem' in groupRoles) bad('TALLY_OIDC_GROUP_ROLES', quote(mapping!), groupRoles.problem as string);
  const connectOrigins = (connect ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const badOrigin = connectOrigins.find((o) => !isOrigin(o));
  if (badOrigin !== undefined) {
    bad(
      'TALLY_OIDC_CONNECT_ORIGINS',
      quote(connect!),
      `must be origins, comma-separated, with no path or trailing slash (e.g. https://oauth2.googleapis.com): not ${badOrigin}`,
    );
    return undefined;
  }
  if (!url || audience === undefined || !claimName.test(audience) || (groupsClaim !== undefined && !claimName.test(groupsClaim)) || 'problem' in groupRoles) {
    return undefined;
  }
  return {
    issuer,
    audience,
    groupsClaim: groupsClaim ?? DEFAULT_GROUPS_CLAIM,
    groupRoles: groupRoles as GroupRoles,
    ...(connectOrigins.length ? { connectOrigins } : {}),
  };
}

type Kind = 'missing' | 'directory' | 'a file' | 'not a regular file' | 'not accessible';

function kindOf(path: string): Kind {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'a file' : 'not a regular file';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'not accessible';
  }
}

/** The opened database, or what is wrong with the path, in words an operator can act on. */
function openGeoDb(path: string): GeoLookup | string {
  const kind = kindOf(path);
  if (kind === 'missing') return 'no such file; set it to the path of a MaxMind City database (.mmdb), or leave it unset to turn geolocation off';
  if (kind === 'directory') return 'is a directory; set it to the .mmdb file inside it (for example GeoLite2-City.mmdb)';
  if (kind !== 'a file') return `is ${kind}; set it to a readable .mmdb file`;
  try {
    return new MmdbGeoLookup(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
    return `is not a MaxMind database (.mmdb) (the reader said: ${(err as Error).message.slice(0, 120)}); download GeoLite2-City.mmdb from MaxMind`;
  }
}

/**
 * What each function may touch, declared once: one line per route (ROUTES), per scheduled job and
 * for the authorizer. The stack derives from these lines both the IAM grants and the environment
 * variables of every function (lib/grants.ts), and nothing else grants a function anything, so least
 * privilege is reviewable here. A route added to ROUTES fails the type check until its line is added;
 * test/stack/iam.test.ts checks every line against the dependencies its entry file asks awsDeps() for.
 */
import type { RouteName } from '../lambdas/routes';
import type { TableName } from '../lambdas/store/schema';
import type { StreamName } from './raw-streams';

export type TableAccess = 'read' | 'readWrite';

export interface RouteAccess {
  tables?: Partial<Record<TableName, TableAccess>>;
  /** firehose:PutRecord/PutRecordBatch on these raw streams (lib/raw-streams.ts). */
  streams?: Partial<Record<StreamName, true>>;
  /** API Gateway API keys and usage plans (the rate-limit registry): create and delete them. */
  apiKeys?: 'manage';
  /**
   * Athena queries over the raw tables (results). 'query': run them in the workgroup, read the Glue
   * tables and the raw objects, write query results.
   */
  athena?: 'query';
  /** secretsmanager:GetSecretValue on the admin token secret (the admin routes authenticate themselves). */
  adminToken?: true;
  /** Plain settings the entry reads from its environment (no IAM); values come from stack props. */
  settings?: Partial<Record<SettingName, true>>;
  /** Function timeout when the default (TallyStackProps.functionTimeout) is not enough. */
  timeoutSeconds?: number;
  /** Ships the geolocation database (TallyStackProps.geoipDatabase) with this function. */
  geolocation?: true;
}

/** experimentsCache: EXPERIMENTS_CACHE_SECONDS, how long an instance may serve its copy of the running experiments. */
export type SettingName = 'experimentsCache';

/** API Gateway gives up on an integration after 29 s: a route doing Athena work gets just under it. */
const ATHENA_ROUTE_TIMEOUT = 28;

const admin = (tables: RouteAccess['tables'], more: Omit<RouteAccess, 'tables' | 'adminToken'> = {}): RouteAccess => ({
  tables: { projects: 'read', ...tables },
  adminToken: true,
  ...more,
});

/** Both ingestion paths: ledger, identity links, both raw streams, the running experiments (exposures). */
const INGEST: RouteAccess = {
  tables: { events: 'readWrite', identities: 'readWrite', experiments: 'read' },
  streams: { events: true, identities: true },
  settings: { experimentsCache: true },
  geolocation: true,
};

export const ROUTE_ACCESS = {
  'ingest-v1': INGEST,
  'ingest-api': INGEST,
  'experiments-assign': {
    tables: { experiments: 'read', assignments: 'readWrite', identities: 'readWrite' },
    streams: { identities: true },
    settings: { experimentsCache: true },
  },
  'experiments-configs': { tables: { experiments: 'read' }, settings: { experimentsCache: true } },
  'admin-projects-create': admin({ projects: 'readWrite' }),
  'admin-projects-list': admin({}),
  'admin-keys-create': admin({ api_keys: 'readWrite' }, { apiKeys: 'manage' }),
  'admin-keys-list': admin({ api_keys: 'read' }),
  'admin-keys-delete': admin({ api_keys: 'readWrite' }, { apiKeys: 'manage' }),
  'admin-events-list': admin({ events: 'read' }),
  'admin-users-get': admin({ identities: 'read' }),
  'admin-experiments-create': admin({ experiments: 'readWrite' }),
  'admin-experiments-list': admin({ experiments: 'read' }),
  'admin-experiments-get': admin({ experiments: 'read' }),
  'admin-experiments-update': admin({ experiments: 'readWrite' }),
  'admin-experiments-start': admin({ experiments: 'readWrite' }),
  'admin-experiments-stop': admin({ experiments: 'readWrite' }),
  'admin-results-get': admin({ experiments: 'read', results: 'read' }),
  'admin-results-refresh': admin({ experiments: 'read', results: 'readWrite' }, { athena: 'query', timeoutSeconds: ATHENA_ROUTE_TIMEOUT }),
} as const satisfies Record<RouteName, RouteAccess>;

/** Scheduled functions (EventBridge), entry file lambdas/entry/<name>.ts. */
export const JOBS = {
  'results-job': {
    description: 'Tally results job: recomputes the results of running experiments with Athena',
    access: { tables: { projects: 'read', experiments: 'read', results: 'readWrite' }, athena: 'query', timeoutSeconds: 600 },
  },
} as const satisfies Record<string, { description: string; access: RouteAccess }>;

export type JobName = keyof typeof JOBS;

/** The authorizer reads keys and nothing else. */
export const AUTHORIZER_ACCESS: RouteAccess = { tables: { api_keys: 'read' } };

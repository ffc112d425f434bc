/**
 * Wiring for the Lambda entry files: AWS clients and stores from the environment the CDK stack sets.
 * Each entry names what it needs; missing variables fail the cold start with their names, so a
 * misconfigured deployment shows up on its first invocation log line rather than as odd behaviour.
 */
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import type { Deps } from '../deps';
import { UNKNOWN_GEO } from '../domain/geo';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { documentClient } from '../store/dynamo-client';
import { DynamoEventLedger } from '../store/event-ledger';
import { FirehoseSink } from '../store/firehose-sink';
import { NO_RATE_LIMIT_REGISTRY } from '../store/ports';
import { DynamoProjectStore } from '../store/project-store';

/** Admin token cache: Secrets Manager is read at most once per this interval per Lambda instance. */
const SECRET_TTL_MS = 5 * 60_000;

const ENV = {
  TABLE_PROJECTS: z.string().min(1),
  TABLE_API_KEYS: z.string().min(1),
  TABLE_EVENTS: z.string().min(1),
  EVENTS_STREAM_NAME: z.string().min(1),
  EVENTS_RETENTION_DAYS: z.coerce.number().int().positive(),
  ADMIN_TOKEN_SECRET_ARN: z.string().min(1),
} as const;
type EnvName = keyof typeof ENV;

/** Which environment variables each dependency needs. */
const NEEDS: Partial<Record<keyof Deps, EnvName[]>> = {
  projects: ['TABLE_PROJECTS'],
  keys: ['TABLE_API_KEYS'],
  ledger: ['TABLE_EVENTS', 'EVENTS_RETENTION_DAYS'],
  sink: ['EVENTS_STREAM_NAME'],
  adminToken: ['ADMIN_TOKEN_SECRET_ARN'],
};

export function loadEnv(names: EnvName[], source: NodeJS.ProcessEnv = process.env): Record<EnvName, string> {
  const shape = Object.fromEntries(names.map((n) => [n, ENV[n]]));
  const parsed = z.object(shape).safeParse(source);
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
    throw new Error(`Invalid or missing environment variables: ${missing}`);
  }
  return parsed.data as Record<EnvName, string>;
}

/** Builds the dependencies an entry file asks for; the others throw if a handler touches them. */
export function awsDeps(needs: Array<keyof Deps>): Deps {
  const env = loadEnv([...new Set(needs.flatMap((n) => NEEDS[n] ?? []))]);
  const ddb = documentClient();
  const unavailable = (name: string) => () => {
    throw new Error(`${name} is not wired into this function`);
  };
  const deps: Partial<Deps> = { clock: Date.now, geo: { lookup: () => UNKNOWN_GEO }, rateLimits: NO_RATE_LIMIT_REGISTRY };
  if (needs.includes('projects')) deps.projects = new DynamoProjectStore(ddb, env.TABLE_PROJECTS);
  if (needs.includes('keys')) deps.keys = new DynamoApiKeyStore(ddb, env.TABLE_API_KEYS);
  if (needs.includes('ledger')) {
    deps.ledger = new DynamoEventLedger(ddb, env.TABLE_EVENTS, { retentionDays: Number(env.EVENTS_RETENTION_DAYS) });
  }
  if (needs.includes('sink')) deps.sink = new FirehoseSink(new FirehoseClient({}), env.EVENTS_STREAM_NAME);
  deps.adminToken = needs.includes('adminToken') ? secretReader(env.ADMIN_TOKEN_SECRET_ARN) : unavailable('adminToken');
  return deps as Deps;
}

function secretReader(secretId: string): () => Promise<string> {
  const client = new SecretsManagerClient({});
  let cached: { value: string; at: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < SECRET_TTL_MS) return cached.value;
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!out.SecretString) throw new Error('The admin token secret has no string value');
    cached = { value: out.SecretString, at: Date.now() };
    return cached.value;
  };
}

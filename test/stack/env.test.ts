/**
 * Environment variables: every variable the stack sets is declared once (lambdas/lambda-env.ts), each
 * function gets exactly the variables its manifest line implies, and each entry file starts (its cold
 * start reads and checks its variables) with the environment the stack gives it and nothing more.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LAMBDA_ENV, readLambdaEnv } from '../../lambdas/lambda-env';
import { AUTHORIZER, AUTHORIZER_ENV, FUNCTIONS, envOf, type FunctionName } from '../../lambdas/routes';
import type { TallyFunction } from '../../lib/function';
import { synthStack, type Synth } from './synth';

const GEOIP = join(import.meta.dirname, '../fixtures/geoip/GeoLite2-City-Test.mmdb');

let s: Synth;
beforeAll(() => {
  s = synthStack({ cloudFront: true, geoipDatabase: GEOIP, keepEventsDays: 400 });
});

function fnOf(name: FunctionName): TallyFunction {
  if (name === 'authorizer') return s.stack.authorizer;
  return name in s.stack.functions ? s.stack.functions[name as keyof typeof s.stack.functions] : s.stack.jobs[name as keyof typeof s.stack.jobs];
}

function envOfFunction(name: FunctionName): Record<string, unknown> {
  const fn = fnOf(name);
  return s.template.toJSON().Resources[s.stack.getLogicalId(fn.fn.node.defaultChild as never)].Properties.Environment.Variables;
}

/** Every function sets these (lib/function.ts). */
const COMMON = ['NODE_OPTIONS', 'TALLY_LOG_LEVEL'];

describe('Lambda environment', () => {
  it('sets only declared variables, exactly those the manifest line implies', () => {
    for (const line of FUNCTIONS) {
      const env = envOfFunction(line.name);
      for (const name of Object.keys(env)) expect(LAMBDA_ENV, `${line.name} sets ${name}, not declared in lambdas/lambda-env.ts`).toHaveProperty(name);
      const expected = [...envOf(line), ...(line.name === AUTHORIZER.name ? AUTHORIZER_ENV : []), ...COMMON];
      expect(Object.keys(env).sort(), line.name).toEqual([...new Set(expected)].sort());
    }
  });

  it('reads a variable once: missing and invalid ones fail by name, empty counts as unset', () => {
    expect(() => readLambdaEnv(['TABLE_PROJECTS', 'EXPERIMENTS_CACHE_SECONDS'], { EXPERIMENTS_CACHE_SECONDS: '61' })).toThrow(
      'Invalid or missing environment variables: TABLE_PROJECTS, EXPERIMENTS_CACHE_SECONDS',
    );
    expect(
      readLambdaEnv(['TABLE_PROJECTS', 'EXPERIMENTS_CACHE_SECONDS', 'ORIGIN_SECRET_ARN'], {
        TABLE_PROJECTS: 't',
        EXPERIMENTS_CACHE_SECONDS: '5',
        ORIGIN_SECRET_ARN: '',
      }),
    ).toEqual({
      TABLE_PROJECTS: 't',
      EXPERIMENTS_CACHE_SECONDS: 5,
    });
    expect(() => readLambdaEnv(['ATHENA_MAX_WAIT_SECONDS'], { ATHENA_MAX_WAIT_SECONDS: '0' })).toThrow('ATHENA_MAX_WAIT_SECONDS');
  });
});

describe('entry files', () => {
  const saved = { ...process.env };
  /** What Lambda provides (the region) and the test process's switch for the SDK's Node notice (bin/node-version.ts). */
  const LOCAL_ONLY = { AWS_REGION: 'eu-west-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  afterEach(() => {
    process.env = { ...saved };
    vi.resetModules();
  });

  /** Placeholders of references whose value has a checked form (names and ARNs are plain text). */
  const SHAPED: Record<string, string> = { DASHBOARD_ORIGIN: 'https://d111111abcdef8.cloudfront.net' };

  /** The stack's values with references replaced by placeholders (names, ARNs) and the database by the test one. */
  function deployedEnv(name: FunctionName): Record<string, string> {
    return Object.fromEntries(
      Object.entries(envOfFunction(name)).map(([k, v]) => [
        k,
        k === 'GEOIP_DB_PATH' ? GEOIP : typeof v === 'string' ? v : (SHAPED[k] ?? `${k.toLowerCase()}-placeholder`),
      ]),
    );
  }

  it.each(FUNCTIONS.map((f) => f.name))('%s starts with the environment the stack gives it', async (name) => {
    process.env = { ...LOCAL_ONLY, ...deployedEnv(name) };
    const entry = await import(/* @vite-ignore */ `../../lambdas/entry/${name}`);
    expect(typeof entry.handler).toBe('function');
  });

  it('an entry missing a variable fails its cold start naming it', async () => {
    const env = deployedEnv('admin-results-refresh');
    delete env.TABLE_RESULTS;
    delete env.ATHENA_WORKGROUP;
    process.env = { ...LOCAL_ONLY, ...env };
    await expect(import('../../lambdas/entry/admin-results-refresh')).rejects.toThrow(
      'Invalid or missing environment variables: TABLE_RESULTS, ATHENA_WORKGROUP',
    );
  });
});

/**
 * The CDK app entry (bin/tally.ts, cdk.json's "app") turns `-c oidcIssuer=… -c oidcClientId=…` into
 * the external-issuer stack, and a bad value into a clear error. The app runs as `cdk synth` runs it:
 * a child process given the context in CDK_CONTEXT_JSON (where the CLI puts `-c` values) and the
 * output directory in CDK_OUTDIR; asset bundling is skipped (aws:cdk:bundling-stacks, which the CLI
 * sets itself), everything else (cdk-nag, CloudFormation validation) runs as in a real synth.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import cdkJson from '../../cdk.json';
import { ROUTES } from '../../lambdas/routes';
import { assemblyTemplate } from './synth';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function synthApp(context: Record<string, string>): { status: number | null; stderr: string; template?: Template } {
  const outdir = mkdtempSync(join(tmpdir(), 'tally-app-'));
  dirs.push(outdir);
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/tally.ts'], {
    env: {
      ...process.env,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context }),
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) return { status: run.status, stderr: run.stderr };
  // The stack with its nested stacks (the route functions are in them), as cdk deploy would upload them.
  return { status: 0, stderr: run.stderr, template: assemblyTemplate(outdir, 'Tally') };
}

const adminEnvs = (template: Template) =>
  Object.values(template.findResources('AWS::Lambda::Function'))
    .map((f) => f.Properties.Environment?.Variables ?? {})
    .filter((v: Record<string, unknown>) => 'OIDC_ISSUER' in v);

describe('bin/tally.ts with -c oidcIssuer and -c oidcClientId', () => {
  it('synthesizes the external-issuer stack: no Cognito user pool, every admin function checks that issuer and client', { timeout: 150_000 }, () => {
    const { status, stderr, template } = synthApp({ oidcIssuer: 'https://accounts.google.com', oidcClientId: '123-abc.apps.googleusercontent.com' });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    template!.resourceCountIs('AWS::Cognito::UserPool', 0);
    template!.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    const envs = adminEnvs(template!);
    // One admin function per admin route (the AdminFunctions of lib/tally-stack.ts), each with the issuer.
    expect(envs.length).toBeGreaterThanOrEqual(1);
    expect(envs.length).toBe(new Set(ROUTES.filter((r) => r.auth === 'admin').map((r) => r.name)).size);
    for (const env of envs) expect(env).toMatchObject({ OIDC_ISSUER: 'https://accounts.google.com', OIDC_AUDIENCE: '123-abc.apps.googleusercontent.com' });
  });

  it.each([
    [{ oidcIssuer: 'https://accounts.google.com' }, 'Set both -c oidcIssuer=<issuer URL> and -c oidcClientId=<client ID>, or neither (Cognito)'],
    [
      { oidcIssuer: 'accounts.google.com', oidcClientId: 'abc' },
      `signIn.issuer (-c oidcIssuer) must be the issuer's https:// URL, exactly as its tokens' iss claim says it (e.g. https://accounts.google.com, https://<org>.okta.com): got "accounts.google.com"`,
    ],
    [
      { oidcIssuer: 'https://sso.example.com', oidcClientId: 'abc', oidcConnectOrigins: 'https://tokens.example.com/token' },
      'signIn.connectOrigins (-c oidcConnectOrigins) must be https:// origins',
    ],
  ])('refuses %j with a clear error', { timeout: 150_000 }, (context, message) => {
    const { status, stderr } = synthApp(context);
    expect(status).not.toBe(0);
    expect(stderr).toContain(message);
  });
});

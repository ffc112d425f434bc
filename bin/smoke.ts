/**
 * `npm run smoke -- <ApiUrl> [options]`: checks a deployed stack, or `npm start`, end to end
 * (docs/deploy.md, "Smoke test"). Exit code 0 when every step passed or was skipped, 1 when one failed, 2 on bad usage.
 *
 * The admin token comes from --secret-id (read with the AWS SDK from Secrets Manager: the stack's
 * AdminTokenSecretArn output) or from TALLY_ADMIN_TOKEN. The raw-stream steps use Athena with
 * --workgroup and --database and the raw bucket's errors/ with --raw-bucket (the AthenaWorkGroup,
 * GlueDatabase and RawBucketName outputs), or the local files with --data-dir; with neither they are skipped. --dashboard (the DashboardUrl output) checks the dashboard
 * answers with its CSP; --stack (default Tally) names the stack in the log-group command of FAIL lines.
 */
import './node-version';
import { AthenaClient } from '@aws-sdk/client-athena';
import { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { athenaRawEvents, localRawEvents } from './smoke/raw-stream';
import { runSmoke, type SmokeOptions } from './smoke/run';
import { UsageError, usageExitCode } from './usage';

const USAGE = `Usage: npm run smoke -- <ApiUrl> [--secret-id <AdminTokenSecretArn>] [--workgroup <AthenaWorkGroup> --database <GlueDatabase> --raw-bucket <RawBucketName>]
                       [--data-dir <dir>] [--timeout <seconds>] [--dashboard <DashboardUrl>] [--stack <stack name>]
  Admin token: --secret-id, else the TALLY_ADMIN_TOKEN environment variable.`;

export async function smokeOptionsFrom(argv: string[], env: NodeJS.ProcessEnv): Promise<SmokeOptions> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'secret-id': { type: 'string' },
      workgroup: { type: 'string' },
      database: { type: 'string' },
      'raw-bucket': { type: 'string' },
      'data-dir': { type: 'string' },
      timeout: { type: 'string' },
      dashboard: { type: 'string' },
      stack: { type: 'string' },
    },
  });
  const [baseUrl, ...extra] = positionals;
  if (!baseUrl || extra.length) throw new UsageError(`Give exactly one API URL (the stack's ApiUrl output).`);
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`The API URL must start with http:// or https://, got ${JSON.stringify(baseUrl)}.`);
  const aws = [values.workgroup, values.database, values['raw-bucket']];
  if (aws.some(Boolean) && !aws.every(Boolean))
    throw new UsageError(
      '--workgroup, --database and --raw-bucket go together (the AthenaWorkGroup, GlueDatabase and RawBucketName outputs: events are counted with Athena, and looked for under errors/ of the raw bucket).',
    );
  if (values.workgroup && values['data-dir']) throw new UsageError('Choose Athena (--workgroup, --database) or local files (--data-dir), not both.');
  const timeout = values.timeout === undefined ? 600 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout must be a positive number of seconds, got ${JSON.stringify(values.timeout)}.`);

  let adminToken = env.TALLY_ADMIN_TOKEN;
  if (values['secret-id']) {
    const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: values['secret-id'] }));
    adminToken = out.SecretString;
  }
  if (values.dashboard !== undefined && !/^https?:\/\//.test(values.dashboard))
    throw new UsageError(`--dashboard must be the DashboardUrl output (http:// or https://), got ${JSON.stringify(values.dashboard)}.`);
  if (!adminToken) throw new UsageError('No admin token: pass --secret-id <AdminTokenSecretArn> or set TALLY_ADMIN_TOKEN.');

  return {
    baseUrl,
    adminToken,
    rawTimeoutMs: timeout * 1000,
    ...(values.dashboard ? { dashboardUrl: values.dashboard } : {}),
    ...(values.stack ? { stackName: values.stack } : {}),
    ...(values.workgroup
      ? { rawEvents: athenaRawEvents(new AthenaClient({}), values.workgroup, values.database!, new S3Client({}), values['raw-bucket']!) }
      : {}),
    ...(values['data-dir'] ? { rawEvents: localRawEvents(values['data-dir']), rawPollMs: 1000 } : {}),
  };
}

async function main() {
  let options: SmokeOptions;
  try {
    options = await smokeOptionsFrom(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(usageExitCode(err));
  }
  const results = await runSmoke(options);
  process.exit(results.some((r) => r.outcome === 'fail') ? 1 : 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();

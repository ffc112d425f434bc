/**
 * `npm run demo -- [<ApiUrl>] [options]`: fills a new project with a made-up shop's events and a
 * running experiment, so the dashboard's Insights pages and an experiment's results have something to
 * show (docs/demo.md). Without an URL it uses `npm start`'s (http://127.0.0.1:3000) and its admin
 * token (<data dir>/admin-token). Exit code 0 when done, 1 when the API refused something, 2 on bad usage.
 */
import './node-version';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DemoFailed, runDemo, type DemoOptions } from './demo/run';
import { UsageError, usageExitCode } from './usage';

const LOCAL_URL = 'http://127.0.0.1:3000';
const USAGE = `Usage: npm run demo -- [<ApiUrl>] [--users <n>] [--days <n>] [--experiment-users <n>] [--seed <n>]
                      [--project <name>] [--dashboard <DashboardUrl>] [--data-dir <dir>]
  <ApiUrl>: default ${LOCAL_URL} (npm start); a local server on another port (http://127.0.0.1:<port>) serves its own dashboard.
  Admin token: TALLY_ADMIN_TOKEN, else <data dir>/admin-token (npm start's; --data-dir, else TALLY_DATA_DIR, else ./.tally).`;

const count = (name: string, value: string | undefined, fallback: number, max: number): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max.toLocaleString('en-US')}, got ${JSON.stringify(value)}.`);
  return n;
};

/**
 * Whether the URL is a local server's (npm start on this machine, on any port: TALLY_PORT), which
 * serves the dashboard itself: http on a loopback address.
 */
export function isLocalServer(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === 'http:' && (hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname));
  } catch {
    return false;
  }
}

export async function demoOptionsFrom(argv: string[], env: NodeJS.ProcessEnv): Promise<DemoOptions> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      users: { type: 'string' },
      days: { type: 'string' },
      'experiment-users': { type: 'string' },
      seed: { type: 'string' },
      project: { type: 'string' },
      dashboard: { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  if (positionals.length > 1) throw new UsageError('Give at most one API URL.');
  const baseUrl = positionals[0] ?? LOCAL_URL;
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`The API URL must start with http:// or https://, got ${JSON.stringify(baseUrl)}.`);
  if (values.dashboard !== undefined && !/^https?:\/\//.test(values.dashboard))
    throw new UsageError(`--dashboard must be the DashboardUrl output (http:// or https://), got ${JSON.stringify(values.dashboard)}.`);

  let adminToken = env.TALLY_ADMIN_TOKEN;
  if (!adminToken) {
    const file = join(resolve(values['data-dir'] ?? env.TALLY_DATA_DIR ?? '.tally'), 'admin-token');
    adminToken = await readFile(file, 'utf8').then(
      (text) => text.trim(),
      () => {
        throw new UsageError(`No admin token: set TALLY_ADMIN_TOKEN, or run npm start first (it keeps its token in ${file}).`);
      },
    );
  }
  if (!values.dashboard && !isLocalServer(baseUrl)) {
    throw new UsageError('For a deployed stack, pass --dashboard <DashboardUrl> (the stack output) for the links to print.');
  }
  return {
    baseUrl,
    adminToken: adminToken!,
    dashboardUrl: values.dashboard ?? baseUrl,
    projectName: values.project ?? 'Demo shop',
    users: count('users', values.users, 500, 100_000),
    days: count('days', values.days, 28, 90),
    experimentUsers: count('experiment-users', values['experiment-users'], 1_000, 100_000),
    seed: count('seed', values.seed, 1, 2 ** 31),
  };
}

async function main() {
  let options: DemoOptions;
  try {
    options = await demoOptionsFrom(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(usageExitCode(err));
  }
  try {
    await runDemo(options);
  } catch (err) {
    const refused = err instanceof DemoFailed;
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    console.error(
      refused
        ? `Stopped: ${(err as Error).message}`
        : cause === 'ECONNREFUSED'
          ? `Stopped: nothing answers at ${options.baseUrl}. Is npm start running?`
          : `Stopped: ${(err as Error).message}`,
    );
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();

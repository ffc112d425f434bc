/**
 * `npm start`: the whole service on this machine, no AWS account needed.
 * Configuration is environment variables, declared and validated before anything starts in one
 * module (lambdas/local/start-config.ts START_ENV and readStartConfig).
 */
import './node-version';
import { setLogWriter } from '../lambdas/logging/log';
import { adminTokenFile, adminTokenFor, keepAdminToken } from '../lambdas/local/data-dir';
import { startLocalServer } from '../lambdas/local/server';
import { terminalLogWriter } from '../lambdas/local/terminal-log';
import { readStartConfig, type StartConfig, type StartEnvName } from '../lambdas/local/start-config';

/** `NAME=value`, for messages naming the variable to change (lambdas/local/start-config.ts START_ENV). */
const setting = (name: StartEnvName, value: string | number) => `${name}=${value}`;

async function main() {
  const read = readStartConfig(process.env);
  if (!read.ok) {
    for (const problem of read.problems) console.error(`Invalid configuration: ${problem}`);
    process.exit(2);
  }
  const config = read.config;
  const { dataDir } = config;
  // Read, or generated in memory: a new token is written only once the server runs, so a start that
  // fails (the port in use) creates nothing.
  const admin = config.adminToken !== undefined ? { token: config.adminToken, source: 'variable' as const } : adminTokenFor(dataDir);
  const tokenFile = adminTokenFile(dataDir);
  const tokenWhere = admin.source === 'variable' ? `your ${'TALLY_ADMIN_TOKEN' satisfies StartEnvName}` : `the admin token in ${tokenFile}`;
  let reminder = '';
  if (config.logFormat === 'text') setLogWriter(terminalLogWriter({ reminder: () => reminder }));
  const server = await startLocalServer({
    port: config.port,
    host: config.host,
    dataDir,
    adminToken: admin.token,
    trustProxy: config.trustProxy,
    geo: config.geo,
    resultsIntervalMs: config.resultsIntervalSeconds * 1000,
    // Each hour of landed events is compacted about a minute after it closes (lambdas/local/compaction-scheduler.ts).
    compactionIntervalMs: 60_000,
    claimLeaseMs: config.claimLeaseSeconds * 1000,
    keepEventsDays: config.keepEventsDays,
    dashboardOrigin: config.dashboardOrigin,
    oidc: config.oidc,
  }).catch((err: unknown) => {
    throw new Error(startFailure(err, config));
  });
  if (admin.source === 'generated') {
    try {
      keepAdminToken(dataDir, admin.token);
    } catch (err) {
      await server.close();
      throw new Error(startFailure(err, config));
    }
  }
  reminder = `-- Tally at ${server.url}/ (dashboard and API); sign in with ${tokenWhere}`;

  console.log(`Tally is running at ${server.url}`);
  // The dashboard is the server's "/": sign in there with the admin token.
  const tokenSource = admin.source === 'variable' ? tokenWhere : 'the admin token below';
  console.log(`  dashboard:      ${server.url}/  (open it and sign in with ${tokenSource})`);
  if (admin.source === 'generated') console.log(`  admin token:    ${admin.token}  (generated on this first start; kept in ${tokenFile})`);
  if (admin.source === 'reused') console.log(`  admin token:    ${admin.token}  (reused: kept in ${tokenFile} since the first start)`);
  console.log(`  SDK example:    ${server.url}/example/`);
  console.log(`  data directory: ${dataDir}`);
  console.log(`  raw events:     ${server.eventsDir}`);
  console.log(`  identity links: ${server.identitiesDir}`);
  console.log(`  SQL views:      ${server.analystViews}  (duckdb -init it: events, identities, unique_events)`);
  console.log(
    config.geoDbPath
      ? `  geolocation:    ${config.geoDbPath}`
      : `  geolocation:    off (country/region/city stay null; set ${'TALLY_GEOIP_DB' satisfies StartEnvName} to a GeoLite2-City .mmdb)`,
  );
  console.log(
    config.resultsIntervalSeconds > 0
      ? `  results job:    every ${config.resultsIntervalSeconds} s`
      : '  results job:    off (POST …/results/refresh computes on demand)',
  );
  console.log(
    config.logFormat === 'text'
      ? `Press Ctrl+C to stop. Requests show below, one line each (${setting('TALLY_LOG_FORMAT', 'json')} for JSON lines).`
      : 'Press Ctrl+C to stop.',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      console.log(`${signal} received again: stopping now, without waiting for requests or the data store.`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal} received: finishing requests and closing the data store… (again to stop at once)`);
    try {
      await server.close();
    } catch (err) {
      console.error(`Could not close cleanly: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    }
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** Failures only the operating system can report (the port taken, no such interface), named by variable. */
function startFailure(err: unknown, config: StartConfig): string {
  const { code, message, syscall, path } = err as NodeJS.ErrnoException;
  if (path !== undefined) return `${setting('TALLY_DATA_DIR', config.dataDir)}: ${code ?? 'error'} on ${path}; choose a directory this user can write`;
  if (syscall !== 'listen' && syscall !== 'getaddrinfo') return message;
  switch (code) {
    case 'EADDRINUSE':
      return `${setting('PORT', config.port)}: the port is already in use on ${config.host}; stop what uses it, or choose another port (0 picks a free one)`;
    case 'EACCES':
      return `${setting('PORT', config.port)}: permission denied (ports below 1024 need privileges); choose a port from 1024 up`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${setting('TALLY_HOST', config.host)}: not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its interface addresses`;
    default:
      return message;
  }
}

main().catch((err: Error) => {
  console.error(`Tally could not start: ${err.message}`);
  process.exit(1);
});

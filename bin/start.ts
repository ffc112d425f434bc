/**
 * `npm start`: the whole service on this machine, no AWS account needed.
 * Configuration is environment variables, validated here (README "Configuration").
 */
import { resolve } from 'node:path';
import * as z from 'zod';
import { persistedAdminToken } from '../lambdas/local/data-dir';
import { startLocalServer } from '../lambdas/local/server';
import { geoLookupFor } from '../lambdas/store/geo-mmdb';

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  TALLY_HOST: z.string().min(1).default('127.0.0.1'),
  TALLY_DATA_DIR: z.string().min(1).default('./.tally'),
  TALLY_ADMIN_TOKEN: z.string().min(16, 'TALLY_ADMIN_TOKEN must be at least 16 characters').optional(),
  TALLY_TRUST_PROXY: z.enum(['0', '1', 'true', 'false']).default('0'),
  TALLY_GEOIP_DB: z.string().min(1).optional(),
  TALLY_RESULTS_INTERVAL_SECONDS: z.coerce.number().min(0).default(60),
});

async function main() {
  const parsed = Env.safeParse(process.env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
    process.exit(2);
  }
  const env = parsed.data;
  const dataDir = resolve(env.TALLY_DATA_DIR);
  const generated = env.TALLY_ADMIN_TOKEN === undefined;
  const adminToken = env.TALLY_ADMIN_TOKEN ?? persistedAdminToken(dataDir);
  const server = await startLocalServer({
    port: env.PORT,
    host: env.TALLY_HOST,
    dataDir,
    adminToken,
    trustProxy: env.TALLY_TRUST_PROXY === '1' || env.TALLY_TRUST_PROXY === 'true',
    geo: geoLookupFor(env.TALLY_GEOIP_DB && resolve(env.TALLY_GEOIP_DB)),
    resultsIntervalMs: env.TALLY_RESULTS_INTERVAL_SECONDS * 1000,
  });

  console.log(`Tally is running at ${server.url}`);
  console.log(`  data directory: ${dataDir}`);
  console.log(`  raw events:     ${server.eventsDir}`);
  console.log(`  identity links: ${server.identitiesDir}`);
  console.log(
    env.TALLY_GEOIP_DB
      ? `  geolocation:    ${resolve(env.TALLY_GEOIP_DB)}`
      : '  geolocation:    off (country/region/city stay null; set TALLY_GEOIP_DB to a GeoLite2-City .mmdb)',
  );
  console.log(
    env.TALLY_RESULTS_INTERVAL_SECONDS > 0
      ? `  results job:    every ${env.TALLY_RESULTS_INTERVAL_SECONDS} s`
      : '  results job:    off (POST …/results/refresh computes on demand)',
  );
  if (generated) console.log(`  admin token:    ${adminToken}  (generated; kept in ${dataDir}/admin-token)`);
  console.log('Press Ctrl+C to stop.');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests and closing the data store…`);
    await server.close();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: Error) => {
  console.error(`Tally could not start: ${err.message}`);
  process.exit(1);
});

/** `npm start`'s configuration module: every declared variable is read and checked, the defaults are the declared ones. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStartConfig, START_ENV, type StartEnvName } from '../../lambdas/local/start-config';

describe('START_ENV', () => {
  it('applies the declared defaults', () => {
    const read = readStartConfig({});
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(String(read.config.port)).toBe(START_ENV.PORT.default);
    expect(read.config.host).toBe(START_ENV.TALLY_HOST.default);
    expect(read.config.dataDir).toBe(resolve(START_ENV.TALLY_DATA_DIR.default));
    expect(read.config.trustProxy ? '1' : '0').toBe(START_ENV.TALLY_TRUST_PROXY.default);
    expect(read.config.logLevel).toBe(START_ENV.TALLY_LOG_LEVEL.default);
    expect(read.config.logFormat).toBe(START_ENV.TALLY_LOG_FORMAT.default);
    expect(String(read.config.resultsIntervalSeconds)).toBe(START_ENV.TALLY_RESULTS_INTERVAL_SECONDS.default);
    expect(String(read.config.claimLeaseSeconds)).toBe(START_ENV.TALLY_CLAIM_LEASE_SECONDS.default);
    expect(read.config.adminToken).toBeUndefined();
    expect(read.config.geoDbPath).toBeUndefined();
    // Sign-in stays the admin token's alone unless an issuer is set.
    expect(read.config.oidc).toBeUndefined();
  });

  it('reads an OIDC issuer with its client ID, groups claim and group mapping', () => {
    const read = readStartConfig({
      TALLY_OIDC_ISSUER: 'https://idp.example.com',
      TALLY_OIDC_AUDIENCE: 'tally-dashboard',
      TALLY_OIDC_GROUPS_CLAIM: 'groups',
      TALLY_OIDC_GROUP_ROLES: 'eng=experimenter, data=analyst',
      TALLY_OIDC_CONNECT_ORIGINS: 'https://tokens.example.com, http://127.0.0.1:4000',
    });
    expect(read).toMatchObject({
      ok: true,
      config: {
        oidc: {
          issuer: 'https://idp.example.com',
          audience: 'tally-dashboard',
          groupsClaim: 'groups',
          connectOrigins: ['https://tokens.example.com', 'http://127.0.0.1:4000'],
        },
      },
    });
    if (!read.ok) return;
    expect([...read.config.oidc!.groupRoles]).toEqual([
      ['eng', 'experimenter'],
      ['data', 'analyst'],
    ]);
    expect(readStartConfig({ TALLY_OIDC_ISSUER: 'https://idp.example.com' })).toEqual({
      ok: false,
      problems: ['TALLY_OIDC_ISSUER="https://idp.example.com": needs TALLY_OIDC_AUDIENCE too: the client ID of the Tally dashboard at the issuer'],
    });
    expect(readStartConfig({ TALLY_OIDC_AUDIENCE: 'x' })).toMatchObject({ ok: false, problems: [expect.stringContaining('without TALLY_OIDC_ISSUER')] });
  });

  it('reads every declared variable: a bad value of each is refused by name', () => {
    const bad: Record<StartEnvName, string> = {
      PORT: '70000',
      TALLY_HOST: 'not a host!',
      TALLY_DATA_DIR: import.meta.filename,
      TALLY_ADMIN_TOKEN: 'short',
      TALLY_TRUST_PROXY: 'yes',
      TALLY_LOG_LEVEL: 'loud',
      TALLY_LOG_FORMAT: 'yaml',
      TALLY_GEOIP_DB: '/no/such/file.mmdb',
      TALLY_RESULTS_INTERVAL_SECONDS: '-1',
      TALLY_CLAIM_LEASE_SECONDS: '0',
      TALLY_KEEP_EVENTS_DAYS: '30',
      TALLY_DASHBOARD_ORIGIN: 'http://localhost:5173/',
      TALLY_OIDC_ISSUER: 'not a url',
      TALLY_OIDC_AUDIENCE: 'two words',
      TALLY_OIDC_GROUPS_CLAIM: 'my groups',
      TALLY_OIDC_GROUP_ROLES: 'owners=owner',
      TALLY_OIDC_CONNECT_ORIGINS: 'https://tokens.example.com/token',
    };
    const read = readStartConfig(bad);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems.map((p) => p.slice(0, p.indexOf('='))).sort()).toEqual(Object.keys(START_ENV).sort());
  });

  it('takes the claim lease in whole seconds from 1 to 3600', () => {
    const lease = (value: string) => readStartConfig({ TALLY_CLAIM_LEASE_SECONDS: value });
    expect(lease('2')).toMatchObject({ ok: true, config: { claimLeaseSeconds: 2 } });
    expect(lease('3600')).toMatchObject({ ok: true, config: { claimLeaseSeconds: 3600 } });
    for (const value of ['0', '3601', '1.5', 'thirty']) {
      expect(lease(value)).toEqual({ ok: false, problems: [`TALLY_CLAIM_LEASE_SECONDS=${JSON.stringify(value)}: must be a whole number from 1 to 3600`] });
    }
  });

  it('keeps events forever unless TALLY_KEEP_EVENTS_DAYS names whole days from 90 to 36500', () => {
    const keep = (value: string) => readStartConfig({ TALLY_KEEP_EVENTS_DAYS: value });
    expect(readStartConfig({})).toMatchObject({ ok: true, config: { keepEventsDays: undefined } });
    expect(keep('90')).toMatchObject({ ok: true, config: { keepEventsDays: 90 } });
    expect(keep('400')).toMatchObject({ ok: true, config: { keepEventsDays: 400 } });
    for (const value of ['89', '36501', '120.5', 'forever', '-1']) {
      expect(keep(value)).toEqual({
        ok: false,
        problems: [
          `TALLY_KEEP_EVENTS_DAYS=${JSON.stringify(value)}: must be a whole number of days from 90 (the longest look-back: planning baselines) to 36500, or unset to keep events forever`,
        ],
      });
    }
  });
});

/** Geolocation from the request IP with the MaxMind test database (test/fixtures/geoip). */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MmdbGeoLookup } from '../../lambdas/adapters/geo-mmdb';
import { startTestProject, type TestStack } from '../helpers/local';

const DB = join(import.meta.dirname, '..', 'fixtures', 'geoip', 'GeoLite2-City-Test.mmdb');

describe.each([true, false])('trust proxy %s', (trustProxy) => {
  let stack: TestStack;
  let project: string;
  let key: string;
  beforeAll(async () => {
    ({ stack, project, key } = await startTestProject('geo', { trustProxy, geo: new MmdbGeoLookup(DB) }));
  });
  afterAll(() => stack.stop());

  const locate = async (ip: string, event: Record<string, unknown> = {}, context?: Record<string, unknown>) => {
    const name = `geo-${Math.random()}`;
    const res = await stack.post('/v1/events', key, { context, events: [{ name, ...event }] }, { headers: { 'X-Forwarded-For': `${ip}, 10.0.0.1` } });
    expect(res.status).toBe(204);
    const e = stack.rawEvents(project).find((x) => x.name === name)!;
    return { country: e.country, region: e.region, city: e.city };
  };

  if (trustProxy) {
    it('derives country, region and city for IPv4 and IPv6', async () => {
      expect(await locate('81.2.69.142')).toEqual({ country: 'GB', region: 'England', city: 'London' });
      expect(await locate('2001:480::1')).toEqual({ country: 'US', region: 'California', city: 'San Diego' });
    });

    it('stores null for unknown, private and malformed addresses', async () => {
      for (const ip of ['8.8.8.8', '10.1.2.3', '::1', 'not-an-ip']) expect(await locate(ip)).toEqual({ country: null, region: null, city: null });
    });

    it('never lets the client set its own location', async () => {
      const spoof = { country: 'FR', region: 'Île-de-France', city: 'Paris' };
      expect(await locate('81.2.69.142', { ...spoof, properties: spoof }, spoof)).toEqual({ country: 'GB', region: 'England', city: 'London' });
    });
  } else {
    it('ignores X-Forwarded-For unless TALLY_TRUST_PROXY is set: the socket address (loopback) has no location', async () => {
      expect(await locate('81.2.69.142')).toEqual({ country: null, region: null, city: null });
    });
  }
});

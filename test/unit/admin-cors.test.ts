/** The admin CORS rule (lambdas/contract/cors.ts): only the dashboard's origin may read admin responses. */
import { describe, expect, it } from 'vitest';
import { adminCorsHeaders, adminPreflightHeaders, isDashboardOrigin, isOrigin } from '../../lambdas/contract/cors';
import { readLambdaEnv } from '../../lambdas/lambda-env';

const DASHBOARD = 'https://d111111abcdef8.cloudfront.net';

describe('admin CORS', () => {
  it('allows the dashboard origin, with Vary: Origin', () => {
    expect(adminCorsHeaders(DASHBOARD, DASHBOARD)).toEqual({
      'Access-Control-Allow-Origin': DASHBOARD,
      'Access-Control-Expose-Headers': 'Retry-After',
      Vary: 'Origin',
    });
  });

  it('gives any other origin no allow-origin, but still Vary: Origin (a cache must not reuse the answer)', () => {
    for (const other of ['https://evil.example', `${DASHBOARD}.evil.example`, DASHBOARD.toUpperCase(), `${DASHBOARD}/`, 'null', '']) {
      expect(adminCorsHeaders(other, DASHBOARD), other).toEqual({ Vary: 'Origin' });
    }
    expect(adminCorsHeaders(undefined, DASHBOARD)).toEqual({ Vary: 'Origin' });
  });

  it('sends no CORS header at all without a configured dashboard origin (npm start: same origin)', () => {
    expect(adminCorsHeaders(DASHBOARD, undefined)).toEqual({});
    expect(adminCorsHeaders('https://evil.example', '')).toEqual({});
    expect(isDashboardOrigin(undefined, undefined)).toBe(false);
    expect(isDashboardOrigin('', '')).toBe(false);
  });

  it('answers an admin preflight with the admin methods and headers, allowing only the dashboard origin', () => {
    const ok = adminPreflightHeaders(DASHBOARD, DASHBOARD);
    expect(ok['Access-Control-Allow-Origin']).toBe(DASHBOARD);
    expect(ok['Access-Control-Allow-Methods']).toBe('GET, POST, PATCH, DELETE');
    expect(ok['Access-Control-Allow-Headers']).toBe('Authorization, Content-Type');
    expect(ok.Vary).toBe('Origin');
    const other = adminPreflightHeaders('https://evil.example', DASHBOARD);
    expect(other).not.toHaveProperty('Access-Control-Allow-Origin');
    expect(adminPreflightHeaders(DASHBOARD, undefined)).not.toHaveProperty('Access-Control-Allow-Origin');
  });

  it('accepts origins as browsers send them and nothing else', () => {
    for (const good of [DASHBOARD, 'http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:3000']) expect(isOrigin(good), good).toBe(true);
    for (const bad of [`${DASHBOARD}/`, 'https://Example.com', 'd111.cloudfront.net', 'ftp://x.example', 'https://x.example/path', '*', 'https://']) {
      expect(isOrigin(bad), bad).toBe(false);
    }
  });

  it('DASHBOARD_ORIGIN must be an origin: a wrong value fails the cold start by name', () => {
    expect(readLambdaEnv(['DASHBOARD_ORIGIN'], { DASHBOARD_ORIGIN: DASHBOARD })).toEqual({ DASHBOARD_ORIGIN: DASHBOARD });
    expect(readLambdaEnv(['DASHBOARD_ORIGIN'], {})).toEqual({});
    expect(() => readLambdaEnv(['DASHBOARD_ORIGIN'], { DASHBOARD_ORIGIN: `${DASHBOARD}/` })).toThrow('DASHBOARD_ORIGIN');
  });
});

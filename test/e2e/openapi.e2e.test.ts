/**
 * The OpenAPI document (lambdas/openapi.ts) as the local server serves it: OpenAPI 3.1, exactly the
 * routes of the manifest (every route documented, no extra path or operation), and request schemas
 * that accept what the handlers accept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBatch } from '../../lambdas/domain/event';
import { experimentMetricResults } from '../../lambdas/domain/experiment-metric-results';
import { startLocalServer, type LocalServer } from '../../lambdas/local/server';
import { ROUTES } from '../../lambdas/routes';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-openapi-'));
let server: LocalServer;
let doc: any;

beforeAll(async () => {
  server = await startLocalServer({ port: 0, dataDir, inMemoryDynamo: true, adminToken: 'openapi-test-admin-token' });
  const res = await fetch(`${server.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document with info, security schemes and paths', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Tally', version: expect.any(String) });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'apiKey']);
  });

  it('documents every route of the manifest, and nothing else', () => {
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set(ROUTES.map((r) => r.path))].sort());
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => METHODS.includes(k))
        .map((method) => ({ path, method: method.toUpperCase(), op: item[method] })),
    );
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      expect(op.operationId).toBe(route.name);
      expect(op.security, route.name).toEqual([{ [route.auth === 'admin' ? 'adminToken' : 'apiKey']: [] }]);
      const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const pathParams = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(pathParams, route.name).toEqual(params);
      expect(Object.keys(op.responses).length, route.name).toBeGreaterThan(1);
    }
  });

  it('describes the results’ metrics (issue 22) in the exact shape the results job stores', () => {
    const route = ROUTES.find((r) => r.name === 'admin-results-get')!;
    const schema = doc.paths[route.path].get.responses['200'].content['application/json'].schema;
    const metric = schema.properties.metrics.items;
    expect(Object.keys(metric.properties)).toEqual([
      'name',
      'kind',
      'role',
      'variants',
      'comparisons',
      'cuped',
      'variance_reduction',
      'breached',
      'unavailable',
    ]);
    expect(Object.keys(metric.properties.variants.items.properties)).toEqual(['variant', 'users', 'mean', 'std_error']);
    expect(Object.keys(metric.properties.comparisons.items.properties)).toEqual([
      'variant',
      'difference',
      'ci_low',
      'ci_high',
      'p_value',
      'relative_difference',
      'relative_ci_low',
      'relative_ci_high',
      'relative_p_value',
      'adjusted_p_value',
    ]);
    expect(schema.properties.guardrail_breached.type).toBe('boolean');
    const computed = experimentMetricResults(
      {
        goal_event: 'signup',
        metrics: [{ name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease' }],
        correction: 'holm',
      },
      [
        { variant: 'a', enrolled: 100, converted: 10 },
        { variant: 'b', enrolled: 100, converted: 14 },
      ],
      [
        {
          variants: [
            { variant: 'a', users: 100, sum: 500, sum_squares: 9000 },
            { variant: 'b', users: 100, sum: 450, sum_squares: 8000 },
          ],
          values_non_negative: true,
        },
      ],
    );
    expect(z.fromJSONSchema(schema.properties.metrics).safeParse(computed.metrics).success).toBe(true);
  });

  it('documents the public error shapes of the spec', () => {
    const v1 = doc.paths['/v1/events'].post.responses;
    expect(Object.keys(v1)).toEqual(expect.arrayContaining(['204', '400', '401', '403', '429']));
    expect(v1['204'].content).toBeUndefined();
    expect(v1['429'].headers).toHaveProperty('Retry-After');
    expect(v1['400'].content['application/json'].schema.required).toEqual(['error']);
    const api = doc.paths['/api/events'].post.responses;
    expect(api['400'].content['application/json'].schema.properties.success).toMatchObject({ const: false });
  });

  it('describes the /v1/events body so that what the handler accepts validates, and what it rejects does not', () => {
    const schema = z.fromJSONSchema(doc.paths['/v1/events'].post.requestBody.content['application/json'].schema);
    const example = {
      events: [
        { name: 'signup', user_id: 'u1', timestamp: '2026-01-02T03:04:05Z', properties: { plan: 'pro' } },
        { name: 'page_view', event_id: 'e-2', timestamp: 1767323045 },
      ],
      context: { platform: 'web', app_version: '1.2.3' },
    };
    expect(parseBatch(example).ok).toBe(true);
    expect(schema.safeParse(example).success).toBe(true);
    for (const bad of [{ events: [{ user_id: 'u1' }] }, { events: [{ name: '' }] }, { events: [{ name: 'x', properties: [] }] }, { batch: [] }]) {
      expect(parseBatch(bad).ok, JSON.stringify(bad)).toBe(false);
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

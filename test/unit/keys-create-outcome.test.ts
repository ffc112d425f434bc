/**
 * POST keys when storing the key fails: a key that was not stored loses its usage plan again, but one
 * whose outcome is unknown (its answer lost and the read-back failed) keeps it, since it may be stored
 * and a stored key without a usage plan is refused by API Gateway. The local server registers nothing
 * (no-rate-limit-registry), so this drives the handler with a registry that records its calls.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../lambdas/domain/api-key';
import { OutcomeUnknownError } from '../../lambdas/domain/transient-error';
import { createKeysCreateHandler } from '../../lambdas/handlers/keys';
import type { ApiKeyStore, AuditLog, ProjectStore, RateLimitRegistry } from '../../lambdas/ports';

const PROJECT = '0b7d3c52-8a7e-4a57-9d0b-3d8f1e2a4c61';

async function createKey(storeFailure: Error) {
  const calls: string[] = [];
  const rateLimits: RateLimitRegistry = {
    register: async () => void calls.push('register'),
    unregister: async () => void calls.push('unregister'),
  };
  const keys = { create: async (_key: ApiKeyRecord) => Promise.reject(storeFailure) } as unknown as ApiKeyStore;
  const projects = { get: async (id: string) => ({ id, name: 'p', created_at: '2026-01-01T00:00:00.000Z' }) } as unknown as ProjectStore;
  // Admin writes are audited: entries are accepted and not looked at here.
  const audit: AuditLog = { begin: async () => undefined, finish: async () => undefined, list: async () => ({ entries: [] }) };
  const handler = createKeysCreateHandler({ adminToken: async () => 'admin-secret', projects, keys, rateLimits, audit, clock: () => Date.now() });
  const event = {
    httpMethod: 'POST',
    path: `/admin/v1/projects/${PROJECT}/keys`,
    headers: { authorization: 'Bearer admin-secret', 'content-type': 'application/json' },
    pathParameters: { project_id: PROJECT },
    body: '{}',
    isBase64Encoded: false,
    requestContext: { requestId: 'r1' },
  } as unknown as APIGatewayProxyEvent;
  const res = await handler(event, {} as Context);
  return { status: res.statusCode, body: JSON.parse(res.body), calls };
}

describe('POST keys when the key store fails', () => {
  it('a key whose storing is unknown keeps its usage plan and answers 503 (retry)', async () => {
    const res = await createKey(new OutcomeUnknownError('The key may or may not have been stored: its answer was lost and reading it back failed; retry'));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/may or may not have been stored/);
    expect(res.calls).toEqual(['register']);
  });

  it('a key that was not stored has its usage plan removed again', async () => {
    const res = await createKey(Object.assign(new Error('refused'), { name: 'ValidationException' }));
    expect(res.status).toBe(500);
    expect(res.calls).toEqual(['register', 'unregister']);
  });
});

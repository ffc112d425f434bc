/**
 * The text rule in the handlers that take IDs from a URL. Locally a URL cannot carry a lone surrogate
 * (percent-decoding reads bytes that are not UTF-8 as U+FFFD); on AWS, API Gateway decodes the path
 * and query string, and its documentation does not say how. So the handlers are driven here with the
 * decoded values as an API Gateway event could hold them: every one is refused before any store is asked.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { HAS_NUL, NOT_WELL_FORMED } from '../../lambdas/domain/client-text';
import { createEventsListHandler } from '../../lambdas/handlers/events-list';
import { createExperimentsAssignHandler } from '../../lambdas/handlers/experiments';
import { createUsersGetHandler } from '../../lambdas/handlers/users';
import type { AssignmentStore, IdentityStore, ProjectStore, RecentEvents } from '../../lambdas/ports';

const PROJECT = '0b7d3c52-8a7e-4a57-9d0b-3d8f1e2a4c61';
const BAD_IDS = ['z1\ud800', 'x\udbffR', '\udc00', 'nul\u0000id'];

/** Stores that record being asked and answer like empty ones. */
function stores() {
  const asked: string[] = [];
  const ask =
    (name: string, answer: unknown = undefined) =>
    async () => {
      asked.push(name);
      return answer;
    };
  const identities = { observe: ask('observe', new Map()), link: ask('link'), group: ask('group') } as unknown as IdentityStore;
  const assignments = { getMany: ask('getMany', new Map()), assign: ask('assign') } as unknown as AssignmentStore;
  const recentEvents = { recent: ask('recent', []) } as unknown as RecentEvents;
  const projects = { get: async (id: string) => ({ id, name: 'p', created_at: '2026-01-01T00:00:00.000Z' }) } as unknown as ProjectStore;
  return { asked, identities, assignments, recentEvents, projects };
}

const gatewayEvent = (fields: Partial<APIGatewayProxyEvent>, authorizer: Record<string, string> | null = null) =>
  ({
    httpMethod: 'GET',
    headers: { authorization: 'Bearer admin-secret' },
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'r1', authorizer },
    ...fields,
  }) as unknown as APIGatewayProxyEvent;

const problemOf = (id: string, label: string) => `${label} ${id.includes('\u0000') ? HAS_NUL : NOT_WELL_FORMED}`;

describe('handlers given IDs that break the text rule', () => {
  it('GET /v1/experiments answers 200 with no assignments and asks no store', async () => {
    const s = stores();
    const running = [{ id: 'e1', name: 'Banner', variants: ['a', 'b'] }];
    const handler = createExperimentsAssignHandler({
      ...s,
      identitySink: { put: async () => undefined },
      catalog: { running: async () => running } as never,
      clock: () => Date.now(),
    });
    for (const id of BAD_IDS) {
      for (const query of [{ user_id: id }, { anonymous_id: id }, { user_id: 'fine', anonymous_id: id }]) {
        const res = await handler(gatewayEvent({ queryStringParameters: query }, { project_id: PROJECT, key_id: 'k' }), {} as Context);
        expect(res.statusCode).toBe(200);
        expect(JSON.parse(res.body)).toEqual({ assigned_variants: {} });
      }
    }
    expect(s.asked).toEqual([]);
  });

  it('GET users/{id} and the events listing answer 400 naming the field and the rule', async () => {
    const s = stores();
    const deps = { ...s, adminToken: async () => 'admin-secret', clock: () => Date.now() };
    const users = createUsersGetHandler(deps);
    const list = createEventsListHandler(deps);
    for (const id of BAD_IDS) {
      const user = await users(gatewayEvent({ pathParameters: { project_id: PROJECT, id } }), {} as Context);
      expect([user.statusCode, JSON.parse(user.body)]).toEqual([400, { error: problemOf(id, 'id') }]);
      for (const field of ['user_id', 'name']) {
        const res = await list(gatewayEvent({ pathParameters: { project_id: PROJECT }, queryStringParameters: { [field]: id } }), {} as Context);
        expect([res.statusCode, JSON.parse(res.body)]).toEqual([400, { error: `${field}: ${problemOf(id, field)}` }]);
      }
    }
    expect(s.asked).toEqual([]);
  });
});

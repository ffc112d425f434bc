/**
 * API Gateway's templates, rendered by a Velocity engine (velocityjs, the maintained JavaScript VTL)
 * from the synthesized template, against what the local server answers for the same request:
 *  - gateway responses (AWS::ApiGateway::GatewayResponse ResponseTemplates): "simple variable
 *    substitution", no VTL (API Gateway developer guide, x-amazon-apigateway-gateway-responses.responseTemplates),
 *    with the $context values the authorizer really returns; the body must be the local server's;
 *  - the CORS preflights' MOCK integrations (RequestTemplates and the integration response's VTL with
 *    $input.params() and $context.responseOverride.header): the headers must be the local server's;
 *  - the stage's access-log format ($context variables): every line must be JSON.
 * API Gateway runs Apache Velocity on the JVM: the one Java method a template calls on a string,
 * String.matches (a whole-string regular expression), is given to velocityjs by JAVA_STRING_METHODS.
 */
import { Compile, parse } from 'velocityjs';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizerHandler, jsonEscape } from '../../lambdas/handlers/authorizer';
import { GATEWAY_CONTEXT } from '../../lambdas/contract/gateway';
import { authorizerContext } from '../../lambdas/services/authorize';
import type { Deps } from '../../lambdas/deps';
import { LIMITS } from '../../lambdas/domain/limits';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { deployedText, resourcesOf } from '../helpers/template-texts';

/**
 * The Java String methods API Gateway's VTL may call on a header value, for velocityjs (whose strings
 * are JavaScript's): String.matches, true when the whole string matches the regular expression.
 */
const JAVA_STRING_METHODS = [
  {
    uid: 'java.lang.String#matches',
    match: ({ property, context }: { property: string; context: unknown }) => property === 'matches' && typeof context === 'string',
    resolve: ({ params, context }: { params: unknown[]; context: unknown }) => new RegExp(`^(?:${String(params[0])})$`, 'u').test(context as string),
  },
];

const render = (template: string, context: Record<string, unknown>) =>
  new Compile(parse(template), { customMethodHandlers: JAVA_STRING_METHODS }).render(context);

const DASHBOARD_DOMAIN = 'd111111abcdef8.cloudfront.net';
const deployed = (value: unknown) =>
  deployedText(value, (id, attribute) => (id.startsWith('DashboardDistribution') && attribute === 'DomainName' ? DASHBOARD_DOMAIN : `<${id}>`));

/** The gateway response of a type: its status, its static headers and its rendered body. */
function gatewayResponse(type: string) {
  const found = resourcesOf('AWS::ApiGateway::GatewayResponse').filter(([, r]) => r.Properties.ResponseType === type);
  expect(found, `one gateway response of type ${type}`).toHaveLength(1);
  const p = found[0]![1].Properties;
  const headers = Object.fromEntries(
    Object.entries((p.ResponseParameters ?? {}) as Record<string, string>).map(([name, value]) => [
      name.replace('gatewayresponse.header.', '').toLowerCase(),
      staticValue(value),
    ]),
  );
  return {
    status: p.StatusCode as string | undefined,
    headers,
    body: (context: Record<string, unknown>) => render(deployed(p.ResponseTemplates['application/json']), { context }),
  };
}

/** A header mapping's static value ('text'); mappings from the request are not used by Tally. */
function staticValue(mapping: string): string {
  expect(mapping, 'a static header mapping').toMatch(/^'.*'$/s);
  return mapping.slice(1, -1);
}

let stack: TestStack;
let project: string;
let keys: { plain: string; web: string; mobile: string; slow: string; revoked: string };
const faults = { keyLookup: false, sink: false };

beforeAll(async () => {
  stack = await startTestStack({
    dashboardOrigin: `https://${DASHBOARD_DOMAIN}`,
    overrides: (deps: Deps) => ({
      ...deps,
      keys: new Proxy(deps.keys, {
        get: (target, name, receiver) =>
          name === 'findByHash' && faults.keyLookup ? () => Promise.reject(new Error('injected: DynamoDB unavailable')) : Reflect.get(target, name, receiver),
      }),
      sink: { put: (records) => (faults.sink ? Promise.reject(new TypeError('injected bug')) : deps.sink.put(records)) },
    }),
  });
  project = await stack.createProject('gateway templates');
  keys = {
    plain: await stack.createKey(project, UNTHROTTLED_KEY),
    web: await stack.createKey(project, { ...UNTHROTTLED_KEY, allowed_origins: ['https://app.example.com'] }),
    mobile: await stack.createKey(project, { ...UNTHROTTLED_KEY, allowed_bundle_ids: ['com.acme.app'] }),
    slow: await stack.createKey(project, { rate_limit_per_minute: 60 }),
    revoked: await stack.createKey(project, UNTHROTTLED_KEY),
  };
});
afterAll(() => stack.stop());

/** A request to the local server, from a page at APP_ORIGIN unless its headers name another Origin (browsers send one; CORS headers answer it). */
const APP_ORIGIN = 'https://app.example.com';
async function local(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  const origin = headers.Origin ?? headers.origin ?? APP_ORIGIN;
  const res = await fetch(stack.url + path, { method: 'POST', ...init, headers: { ...headers, Origin: origin } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, origin, body: text ? (JSON.parse(text) as unknown) : undefined };
}
const events = JSON.stringify({ events: [{ name: 'page_view', user_id: 'u-1' }] });
const bearer = (key: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...extra });

/** The context the real authorizer (on the local stack's key store) returns for a request. */
async function authorizerContextFor(path: string, headers: Record<string, string>): Promise<Record<string, string>> {
  const authorize = createAuthorizerHandler({ keys: stack.deps.keys, clock: Date.now, keyCacheTtlMs: 0 });
  const event = {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:1:a/prod/POST' + path,
    resource: path,
    path,
    headers,
  } as unknown as APIGatewayRequestAuthorizerEvent;
  return ((await authorize(event)).context ?? {}) as Record<string, string>;
}

/** Asserts the gateway response of `type`, rendered with `context`, is what the local server answered. */
function expectSameAnswer(type: string, context: Record<string, unknown>, answer: Awaited<ReturnType<typeof local>>) {
  const gateway = gatewayResponse(type);
  if (gateway.status) expect(answer.status).toBe(Number(gateway.status));
  const body = gateway.body(context);
  expect(() => JSON.parse(body), body).not.toThrow();
  expect(JSON.parse(body)).toEqual(answer.body);
  for (const [name, value] of Object.entries(gateway.headers)) {
    // API Gateway allows every origin ('*'); the local server names the request's: the browser reads the body either way.
    if (name === 'access-control-allow-origin') expect([value, answer.headers.get(name)]).toEqual(['*', answer.origin]);
    else expect(answer.headers.get(name), name).toBe(value);
  }
}

describe('gateway responses, rendered from the template, answer what the local server answers', () => {
  it('ACCESS_DENIED (403): the denied origin and bundle ID, on /v1 and /api, with the context the authorizer returns', async () => {
    for (const path of ['/v1/events', '/api/events']) {
      for (const headers of [
        bearer(keys.web, { Origin: 'https://evil.example' }),
        bearer(keys.mobile),
        bearer(keys.mobile, { 'X-Tally-Bundle-ID': 'com.other' }),
      ]) {
        const answer = await local(path, { headers, body: events });
        expect(answer.status).toBe(403);
        expectSameAnswer('ACCESS_DENIED', { authorizer: await authorizerContextFor(path, headers) }, answer);
      }
    }
  });

  it('ACCESS_DENIED: any message the authorizer escapes stays one JSON string (quotes, backslashes, control and non-ASCII characters)', () => {
    const body = gatewayResponse('ACCESS_DENIED').body;
    for (const message of ['say "no"', 'C:\\path\\', 'tab\there\nnew line', 'Ürsprung ✗ 原点 😀', '\u0000\u001f', '</script>']) {
      for (const suffix of ['', ',"success":false']) {
        const rendered = body({ authorizer: { [GATEWAY_CONTEXT.error]: jsonEscape(message), [GATEWAY_CONTEXT.errorSuffix]: suffix } });
        expect(JSON.parse(rendered)).toEqual(suffix ? { error: message, success: false } : { error: message });
      }
    }
  });

  it('THROTTLED and QUOTA_EXCEEDED (429): the body every path gets, with Retry-After', async () => {
    let answer;
    for (let i = 0; i < 200; i++) {
      answer = await local('/v1/events', { headers: bearer(keys.slow), body: events });
      if (answer.status === 429) break;
    }
    expect(answer!.status).toBe(429);
    expectSameAnswer('THROTTLED', {}, answer!);
    expectSameAnswer('QUOTA_EXCEEDED', {}, answer!);
    const api = await local('/api/events', { headers: bearer(keys.slow), body: events });
    expect(api.status).toBe(429);
    expectSameAnswer('THROTTLED', {}, api);
  });

  it('INVALID_API_KEY and UNAUTHORIZED (401): a revoked and a missing key on /v1', async () => {
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/keys`);
    const revokedId = (listed.body.keys as Array<{ id: string; key_prefix: string }>).find((k) => keys.revoked.startsWith(k.key_prefix))!.id;
    expect((await stack.admin('DELETE', `/admin/v1/projects/${project}/keys/${revokedId}`)).status).toBe(204);
    expectSameAnswer('INVALID_API_KEY', {}, await local('/v1/events', { headers: bearer(keys.revoked), body: events }));
    expectSameAnswer('UNAUTHORIZED', {}, await local('/v1/events', { headers: { 'Content-Type': 'application/json' }, body: events }));
  });

  it('REQUEST_TOO_LARGE (413) on /v1', async () => {
    const answer = await local('/v1/events', { headers: bearer(keys.plain), body: 'x'.repeat(LIMITS.maxBodyBytes + 1) });
    expectSameAnswer('REQUEST_TOO_LARGE', {}, answer);
  });

  it('MISSING_AUTHENTICATION_TOKEN (404): an unknown path and a method no route has, on every path', async () => {
    expectSameAnswer('MISSING_AUTHENTICATION_TOKEN', {}, await local('/v2/events'));
    expectSameAnswer('MISSING_AUTHENTICATION_TOKEN', {}, await local('/v1/events', { method: 'GET', headers: bearer(keys.plain) }));
    expectSameAnswer('MISSING_AUTHENTICATION_TOKEN', {}, await local('/api/nothing'));
    expectSameAnswer(
      'MISSING_AUTHENTICATION_TOKEN',
      {},
      await local('/admin/v1/nothing', { method: 'GET', headers: { Origin: `https://${DASHBOARD_DOMAIN}` } }),
    );
  });

  it('AUTHORIZER_FAILURE (503): the key lookup fails', async () => {
    faults.keyLookup = true;
    try {
      expectSameAnswer('AUTHORIZER_FAILURE', {}, await local('/v1/events', { headers: bearer(keys.plain), body: events }));
    } finally {
      faults.keyLookup = false;
    }
  });

  it('AUTHORIZER_CONFIGURATION_ERROR and DEFAULT_5XX: the body of any other server error', async () => {
    faults.sink = true;
    try {
      const answer = await local('/v1/events', { headers: bearer(keys.plain), body: events });
      expect(answer.status).toBe(500);
      expectSameAnswer('AUTHORIZER_CONFIGURATION_ERROR', {}, answer);
      expect(JSON.parse(gatewayResponse('DEFAULT_5XX').body({}))).toEqual(answer.body);
    } finally {
      faults.sink = false;
    }
  });

  it("DEFAULT_4XX: API Gateway's own messages ($context.error.messageString, the quoted message) become the error", () => {
    const body = gatewayResponse('DEFAULT_4XX').body;
    for (const message of ['Invalid request body', 'Unsupported Media Type', 'Forbidden', 'Missing Authentication Token']) {
      expect(JSON.parse(body({ error: { messageString: `"${message}"`, message } }))).toEqual({ error: message });
    }
  });

  it('leaves no $context variable unset in any gateway response', () => {
    const context = { authorizer: { [GATEWAY_CONTEXT.error]: 'e', [GATEWAY_CONTEXT.errorSuffix]: '' }, error: { messageString: '"m"' } };
    for (const [, r] of resourcesOf('AWS::ApiGateway::GatewayResponse')) {
      expect(render(deployed(r.Properties.ResponseTemplates['application/json']), { context })).not.toContain('$');
    }
  });
});

/** The preflight headers API Gateway sends: the integration response's static mappings, then the template's overrides. */
function preflightOnAws(resourceId: string, requestHeaders: Record<string, string>) {
  const method = resourcesOf('AWS::ApiGateway::Method').find(([id]) => id === resourceId)![1].Properties;
  const integration = method.Integration;
  expect(integration.Type).toBe('MOCK');
  // The request template picks the integration response by status code.
  const request = JSON.parse(render(deployed(integration.RequestTemplates['application/json']), {})) as { statusCode: number };
  const response = (integration.IntegrationResponses as Array<Record<string, any>>).find((r) => Number(r.StatusCode) === request.statusCode)!;
  expect(response, `an integration response for ${request.statusCode}`).toBeDefined();
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(response.ResponseParameters as Record<string, string>).map(([name, value]) => [
      name.replace('method.response.header.', '').toLowerCase(),
      staticValue(value),
    ]),
  );
  const overrides: Record<string, unknown> = {};
  const context = {
    input: { params: () => ({ header: { get: (name: string) => requestHeaders[name] } }) },
    context: { responseOverride: { header: overrides } },
  };
  render(deployed(response.ResponseTemplates['application/json']), context);
  for (const [name, value] of Object.entries(overrides)) headers[name.toLowerCase()] = String(value);
  return { status: request.statusCode, headers };
}

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'vary',
];

async function expectSamePreflight(resourceId: string, path: string, requestHeaders: Record<string, string>) {
  const aws = preflightOnAws(resourceId, requestHeaders);
  const res = await fetch(stack.url + path, { method: 'OPTIONS', headers: requestHeaders });
  await res.arrayBuffer();
  expect(res.status).toBe(aws.status);
  const ours = Object.fromEntries(CORS_HEADERS.map((name) => [name, res.headers.get(name) ?? undefined]).filter(([, v]) => v !== undefined));
  const theirs = Object.fromEntries(CORS_HEADERS.map((name) => [name, aws.headers[name]]).filter(([, v]) => v !== undefined));
  expect(ours, JSON.stringify(requestHeaders)).toEqual(theirs);
}

describe('CORS preflights: the MOCK integrations rendered by a Velocity engine send the local server’s headers', () => {
  const ingest = () => resourcesOf('AWS::ApiGateway::Method').find(([id, r]) => id.startsWith('Apiv1events') && r.Properties.HttpMethod === 'OPTIONS')![0];
  const admin = () =>
    resourcesOf('AWS::ApiGateway::Method').find(([id, r]) => id.startsWith('Apiadminv1projectsOPTIONS') && r.Properties.HttpMethod === 'OPTIONS')![0];

  it('ingestion: echoes the origin and well-formed requested headers, refuses header injection', async () => {
    const cases: Array<Record<string, string>> = [
      { Origin: 'https://app.example.com', 'Access-Control-Request-Headers': 'x-tally-key, content-type' },
      { origin: 'https://app.example.com', 'access-control-request-headers': 'X-Custom-Header' },
      { Origin: 'https://app.example.com', 'Access-Control-Request-Headers': 'bad header, "quoted"' },
      { Origin: 'https://ünïcode.example', 'Access-Control-Request-Headers': 'x-a,x-b ,\tx-c' },
      {},
    ];
    for (const headers of cases) await expectSamePreflight(ingest(), '/v1/events', headers);
  });

  it('admin: allows only the dashboard origin', async () => {
    for (const origin of [`https://${DASHBOARD_DOMAIN}`, 'https://evil.example', `https://${DASHBOARD_DOMAIN}.evil.example`]) {
      await expectSamePreflight(admin(), '/admin/v1/projects', { Origin: origin, 'Access-Control-Request-Method': 'POST' });
    }
  });

  it('covers every OPTIONS method of the template (each is a MOCK rendered above or identical to one)', () => {
    const options = resourcesOf('AWS::ApiGateway::Method').filter(([, r]) => r.Properties.HttpMethod === 'OPTIONS');
    const kinds = new Set(options.map(([, r]) => JSON.stringify(r.Properties.Integration)));
    const rendered = new Set(
      [ingest(), admin()].map((id) => JSON.stringify(resourcesOf('AWS::ApiGateway::Method').find(([i]) => i === id)![1].Properties.Integration)),
    );
    expect([...kinds].filter((k) => !rendered.has(k))).toEqual([]);
  });
});

describe('the access log format', () => {
  it('renders to one JSON object whose key and project come from the authorizer context', () => {
    const [, stage] = resourcesOf('AWS::ApiGateway::Stage')[0]!;
    const format = deployed(stage.Properties.AccessLogSetting.Format);
    const authorizer = {
      ...authorizerContext({ id: 'key-1', project_id: 'proj-1' } as never),
      status: '200',
      latency: '12',
    };
    const context = {
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: '1764300000000',
      httpMethod: 'POST',
      resourcePath: '/v1/events',
      status: '204',
      error: { responseType: 'THROTTLED' },
      responseLatency: '41',
      integrationLatency: '30',
      integration: { error: 'Lambda timed out' },
      authorizer,
      responseLength: '0',
    };
    const line = JSON.parse(render(format, { context })) as Record<string, string>;
    expect(line).toMatchObject({ keyId: 'key-1', projectId: 'proj-1', method: 'POST', status: '204', errorType: 'THROTTLED' });
    expect(Object.values(line).some((v) => v.includes('$context'))).toBe(false);
  });
});

/** The REST API: routes from ROUTES, authorizer wiring, usage plans and the gateway's own error bodies. */
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { INVALID_KEY_ERROR, ORIGIN_NOT_ALLOWED_ERROR } from '../../lambdas/domain/access';
import { hashApiKey, PLAN_LIMITS, type ApiKeyRecord } from '../../lambdas/domain/api-key';
import { createAuthorizerHandler } from '../../lambdas/handlers/authorizer';
import { RETRY_AFTER_SECONDS as RETRY_AFTER } from '../../lambdas/domain/retry-after';
const RETRY_AFTER_SECONDS = RETRY_AFTER.gatewayThrottled;
import { ApiError } from '../../lambdas/http/api-error';
import { principalOf } from '../../lambdas/http/principal';
import { errorBody, RATE_LIMIT_ERROR, surfaceOf } from '../../lambdas/domain/surface';
import { ROUTES } from '../../lambdas/routes';
import { preflightHeaders, PREFLIGHT_HEADER_LIST_PATTERN } from '../../lambdas/contract/cors';
import { preflightResponseTemplate } from '../../lib/api/api';
import type { ApiKeyStore } from '../../lambdas/ports';
import { synthStack, type Synth } from './synth';

process.env.TALLY_LOG_LEVEL ??= 'silent';

let s: Synth;
beforeAll(() => {
  s = synthStack();
});

/** Resource path of an AWS::ApiGateway::Resource, rebuilt from its parent chain. */
function resourcePaths(): Map<string, string> {
  const resources = s.template.findResources('AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known) return known;
    const props = resources[id]!.Properties;
    const parent = props.ParentId.Ref ? pathOf(props.ParentId.Ref) : '';
    const path = `${parent}/${props.PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

function methods() {
  const paths = resourcePaths();
  return Object.values(s.template.findResources('AWS::ApiGateway::Method')).map((m) => ({
    path: paths.get(m.Properties.ResourceId.Ref)!,
    method: m.Properties.HttpMethod as string,
    props: m.Properties,
  }));
}

describe('REST API', () => {
  it('accepts every body as binary and takes API keys from the authorizer', () => {
    s.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: ['*/*'],
      ApiKeySourceType: 'AUTHORIZER',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('has one method per route, integrated with that route function', () => {
    const all = methods();
    for (const route of ROUTES) {
      const found = all.filter((m) => m.path === route.path && m.method === route.method);
      expect(found, `${route.method} ${route.path}`).toHaveLength(1);
      const uri = JSON.stringify(found[0]!.props.Integration.Uri);
      const fnId = s.stack.getLogicalId(s.stack.functions[route.name].fn.node.defaultChild as never);
      expect(uri).toContain(fnId);
      expect(found[0]!.props.Integration.Type).toBe('AWS_PROXY');
    }
    const routeMethods = all.filter((m) => m.method !== 'OPTIONS');
    expect(routeMethods).toHaveLength(ROUTES.length);
  });

  it('lets API Gateway invoke each route function for its own method on the stage, by the stage name (no reference back to the parent stack)', () => {
    const apiId = s.stack.getLogicalId(s.stack.api.api.node.defaultChild as never);
    const stage = s.template.toJSON().Resources[s.stack.getLogicalId(s.stack.api.api.deploymentStage.node.defaultChild as never)].Properties.StageName;
    expect(stage).toBe('prod');
    const permissions = Object.values(s.template.findResources('AWS::Lambda::Permission')).map((p) => p.Properties);
    for (const route of ROUTES) {
      const fnId = s.stack.getLogicalId(s.stack.functions[route.name].fn.node.defaultChild as never);
      const own = permissions.filter((p) => p.Principal === 'apigateway.amazonaws.com' && p.FunctionName['Fn::GetAtt']?.[0] === fnId);
      expect(own, route.name).toHaveLength(1);
      expect(own[0]!.Action).toBe('lambda:InvokeFunction');
      // arn:<partition>:execute-api:<region>:<account>:<api id>/<stage>/<METHOD>/<path, parameters as *>
      const parts = own[0]!.SourceArn['Fn::Join'][1] as unknown[];
      expect(parts.slice(-3), route.name).toEqual([':', { Ref: apiId }, `/${stage}/${route.method}${route.path.replace(/\{[^}]*\}/g, '*')}`]);
    }
  });

  it('puts the key authorizer and API-key requirement on api-key routes only', () => {
    const authorizerId = s.stack.getLogicalId(s.stack.api.authorizer.node.defaultChild as never);
    for (const m of methods().filter((x) => x.method !== 'OPTIONS')) {
      const route = ROUTES.find((r) => r.path === m.path && r.method === m.method)!;
      if (route.auth === 'api-key') {
        expect(m.props, route.name).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
      } else {
        expect(m.props.AuthorizationType, route.name).toBe('NONE');
        expect(m.props.AuthorizerId, route.name).toBeUndefined();
        expect(m.props.ApiKeyRequired ?? false, route.name).toBe(false);
      }
    }
  });

  it('answers CORS preflight on every route without credentials, with a mock that converts the binary body', () => {
    const options = methods().filter((m) => m.method === 'OPTIONS');
    // Public paths here; admin paths (for the dashboard's origin only) in test/stack/dashboard.test.ts.
    expect(new Set(options.map((m) => m.path))).toEqual(new Set(ROUTES.map((r) => r.path)));
    for (const m of options) {
      expect(m.props).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: { Type: 'MOCK', ContentHandling: 'CONVERT_TO_TEXT' },
      });
    }
  });

  it("gives the preflight the local server's headers: static fallbacks, then Origin and the requested headers reflected", () => {
    const local = preflightHeaders(undefined, undefined);
    const publicPaths = new Set<string>(ROUTES.filter((r) => r.auth === 'api-key').map((r) => r.path));
    for (const m of methods().filter((x) => x.method === 'OPTIONS' && publicPaths.has(x.path))) {
      const response = m.props.Integration.IntegrationResponses[0];
      const params = response.ResponseParameters as Record<string, string>;
      // Every header the local server sends, with the value it sends when nothing is reflected.
      expect(Object.keys(params).sort()).toEqual(
        Object.keys(local)
          .map((k) => `method.response.header.${k}`)
          .sort(),
      );
      for (const [name, value] of Object.entries(local)) expect(params[`method.response.header.${name}`], name).toBe(`'${value}'`);
      // The fallback allows the spec's headers under both prefixes and the key headers.
      for (const name of [
        'X-Tally-SDK',
        'X-MGM-SDK',
        'X-MGM-SDK-Version',
        'X-MGM-Platform',
        'X-MGM-Platform-Version',
        'X-MGM-Bundle-ID',
        'X-Tally-Key',
        'X-MGM-Key',
        'Content-Encoding',
      ]) {
        expect(params['method.response.header.Access-Control-Allow-Headers']).toContain(name);
      }
      expect(response.ContentHandling).toBe('CONVERT_TO_TEXT');
      const template = response.ResponseTemplates['application/json'] as string;
      expect(template).toBe(preflightResponseTemplate());
      expect(template).toContain(`$requested.matches("${PREFLIGHT_HEADER_LIST_PATTERN}")`);
      expect(template).toContain('#set($context.responseOverride.header.Access-Control-Allow-Headers = $requested)');
      expect(template).toContain('#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)');
      const methodHeaders = Object.keys(m.props.MethodResponses[0].ResponseParameters).sort();
      expect(methodHeaders).toEqual(Object.keys(params).sort());
    }
  });

  it('embeds a header-list pattern Velocity cannot misread and both regex engines read alike', () => {
    // "#" starts a directive, "$" a reference, a double quote ends the string literal.
    expect(PREFLIGHT_HEADER_LIST_PATTERN).not.toMatch(/[#$"']/);
    // Only constructs Java and JavaScript share: character classes, \w, \t, \xNN, (?: ), * and +.
    expect(PREFLIGHT_HEADER_LIST_PATTERN.replace(/\\(w|t|x[0-9a-f]{2})/g, '')).toMatch(/^[[\] !%&*+.^~\-,()?:]*$/);
  });

  it('uses a REQUEST authorizer without result cache and without identity sources', () => {
    const authorizers = s.template.findResources('AWS::ApiGateway::Authorizer');
    expect(Object.values(authorizers)).toHaveLength(1);
    const props = Object.values(authorizers)[0]!.Properties;
    expect(props.Type).toBe('REQUEST');
    // 0: API Gateway would cache the decision per identity source, replaying one Origin decision for another.
    expect(props.AuthorizerResultTtlInSeconds).toBe(0);
    // No identity source: requests without Authorization still reach the authorizer (path-shaped 401).
    expect(props).not.toHaveProperty('IdentitySource');
    expect(JSON.stringify(props.AuthorizerUri)).toContain(s.stack.getLogicalId(s.stack.authorizer.fn.node.defaultChild as never));
  });

  it('has Free and Pro usage plans bound to the stage with limit/60 per second and a burst of limit', () => {
    const stageId = s.stack.getLogicalId(s.stack.api.api.deploymentStage.node.defaultChild as never);
    for (const [plan, limit] of Object.entries(PLAN_LIMITS)) {
      s.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `Tally-${plan}`,
        Throttle: { RateLimit: limit / 60, BurstLimit: limit },
        ApiStages: [{ ApiId: Match.anyValue(), Stage: { Ref: stageId } }],
      });
    }
    // ... plus the plan of the unauthenticated key (below).
    expect(Object.keys(s.template.findResources('AWS::ApiGateway::UsagePlan'))).toHaveLength(3);
  });

  it('takes plan limits from props', () => {
    const custom = synthStack({ planLimits: { free: 60, pro: 6000 } });
    custom.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', { UsagePlanName: 'Tally-free', Throttle: { RateLimit: 1, BurstLimit: 60 } });
    custom.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', { UsagePlanName: 'Tally-pro', Throttle: { RateLimit: 100, BurstLimit: 6000 } });
  });

  it('writes JSON access logs', () => {
    s.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"keyId":"\\$context.authorizer.key_id"') },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Gateway responses. API Gateway renders their templates by plain variable substitution; render()
// does the same with what the real authorizer returns for a request, and the result must equal the
// body the handlers (errorBody) would give on that path.

interface GatewayResponse {
  status: string | undefined;
  template: string;
  headers: Record<string, string>;
}

function gatewayResponses(): Record<string, GatewayResponse> {
  const out: Record<string, GatewayResponse> = {};
  for (const r of Object.values(s.template.findResources('AWS::ApiGateway::GatewayResponse'))) {
    out[r.Properties.ResponseType] = {
      status: r.Properties.StatusCode,
      template: r.Properties.ResponseTemplates['application/json'],
      headers: r.Properties.ResponseParameters ?? {},
    };
  }
  return out;
}

/** Substitutes $context variables like API Gateway does; unset ones become empty. */
function render(template: string, authorizer: Record<string, string> | undefined, errorMessage = 'message'): unknown {
  const text = template
    .replace(/\$context\.authorizer\.([A-Za-z0-9_]+)/g, (_, key: string) => authorizer?.[key] ?? '')
    .replace(/\$context\.error\.messageString/g, JSON.stringify(errorMessage));
  return JSON.parse(text);
}

const WEB = 'tally_webkey00000000000000000000000000000000000';
const keys: ApiKeyStore = {
  create: async () => undefined,
  listByProject: async () => [],
  revoke: async () => undefined,
  relabel: async () => undefined,
  findByHash: async (hash) =>
    hash === hashApiKey(WEB)
      ? ({
          id: 'key-web',
          project_id: 'proj-1',
          key_hash: hash,
          key_prefix: 'tally_webkey',
          plan: 'free',
          rate_limit_per_minute: 100,
          allowed_origins: ['https://app.example.com'],
          allowed_bundle_ids: [],
          created_at: '2025-01-01T00:00:00.000Z',
        } satisfies ApiKeyRecord)
      : undefined,
};
const authorize = createAuthorizerHandler({ keys, clock: Date.now, keyCacheTtlMs: 0 });
const authorizerContextFor = async (path: string, headers: Record<string, string>) =>
  (await authorize({ type: 'REQUEST', methodArn: 'arn', resource: path, path, httpMethod: 'POST', headers } as unknown as APIGatewayRequestAuthorizerEvent))
    .context as Record<string, string>;

describe('gateway responses', () => {
  const publicPaths = [...new Set(ROUTES.filter((r) => r.auth === 'api-key').map((r) => r.path))];

  it('admits a missing or unknown key to its handler, which answers 401 in the path shape', async () => {
    // The authorizer names the stack's unauthenticated API key, bound to a usage plan on the stage...
    const value = s.template.toJSON().Resources[s.stack.getLogicalId(s.stack.authorizer.fn.node.defaultChild as never)].Properties.Environment.Variables
      .UNAUTHENTICATED_USAGE_KEY as string;
    expect(value).toBe('Tally-unauthenticated-requests');
    const [keyId] = Object.entries(s.template.findResources('AWS::ApiGateway::ApiKey')).find(([, k]) => k.Properties.Value === value)!;
    const [planId] = Object.entries(s.template.findResources('AWS::ApiGateway::UsagePlan')).find(
      ([, p]) => p.Properties.UsagePlanName === 'Tally-unauthenticated',
    )!;
    s.template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', { KeyId: { Ref: keyId }, UsagePlanId: { Ref: planId }, KeyType: 'API_KEY' });
    // ...so the request reaches the handler, with a context that names no project: principalOf refuses it.
    const admit = createAuthorizerHandler({ keys, clock: Date.now, keyCacheTtlMs: 0, unauthenticatedUsageKey: value });
    for (const path of publicPaths) {
      for (const headers of [{}, { Authorization: 'Bearer tally_nope' }] as Array<Record<string, string>>) {
        const out = await admit({
          type: 'REQUEST',
          methodArn: 'arn',
          resource: path,
          path,
          httpMethod: 'POST',
          headers,
        } as unknown as APIGatewayRequestAuthorizerEvent);
        expect(out.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
        expect(out.usageIdentifierKey, path).toBe(value);
        let refused: unknown;
        try {
          principalOf({ requestContext: { authorizer: out.context } } as never);
        } catch (err) {
          refused = err;
        }
        expect(refused).toBeInstanceOf(ApiError);
        expect((refused as ApiError).status).toBe(401);
      }
    }
  });

  it('answers INVALID_API_KEY (a key revoked while the authorizer caches it) with a static 401, not $context.authorizer', () => {
    const r = gatewayResponses().INVALID_API_KEY!;
    expect(r.status).toBe('401');
    expect(r.template).not.toContain('$context.authorizer');
    expect(render(r.template, undefined)).toEqual({ error: INVALID_KEY_ERROR });
    expect(gatewayResponses().UNAUTHORIZED).toMatchObject({ status: '401', template: r.template });
  });

  it("answers origin and bundle-ID denials with 403 and the authorizer's message", async () => {
    const r = gatewayResponses().ACCESS_DENIED!;
    expect(r.status).toBe('403');
    for (const path of publicPaths) {
      const ctx = await authorizerContextFor(path, { Authorization: `Bearer ${WEB}`, Origin: 'https://evil.example' });
      expect(render(r.template, ctx), path).toEqual(errorBody(surfaceOf(path), ORIGIN_NOT_ALLOWED_ERROR));
    }
  });

  it("answers throttling with 429, Retry-After, and one static body holding both paths' members", () => {
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      const r = gatewayResponses()[type]!;
      expect(r.status).toBe('429');
      expect(r.headers['gatewayresponse.header.Retry-After']).toBe(`'${RETRY_AFTER_SECONDS}'`);
      expect(r.headers['gatewayresponse.header.Access-Control-Expose-Headers']).toBe("'Retry-After'");
      expect(r.template).not.toContain('$context');
      const body = render(r.template, undefined) as Record<string, unknown>;
      expect(body).toEqual({ error: RATE_LIMIT_ERROR, retry_after: RETRY_AFTER_SECONDS, success: false });
      // Every member of each path's spec body is there with its value.
      expect(body).toMatchObject(errorBody('v1', RATE_LIMIT_ERROR, { retry_after: RETRY_AFTER_SECONDS }));
      expect(body).toMatchObject(errorBody('api', RATE_LIMIT_ERROR));
    }
  });

  it("gives DEFAULT_4XX API Gateway's message in the /v1 and /admin shape", () => {
    const all = gatewayResponses();
    expect(render(all.DEFAULT_4XX!.template, undefined, 'Forbidden')).toEqual({ error: 'Forbidden' });
  });

  it('answers oversized bodies with 413, unknown routes with 404, authorizer failures with a retryable 503', () => {
    const all = gatewayResponses();
    expect(all.REQUEST_TOO_LARGE!.status).toBe('413');
    expect(render(all.REQUEST_TOO_LARGE!.template, undefined)).toEqual({ error: expect.stringMatching(/larger than 1048576 bytes/) });
    expect(all.MISSING_AUTHENTICATION_TOKEN!.status).toBe('404');
    expect(all.AUTHORIZER_FAILURE!.status).toBe('503');
    expect(all.AUTHORIZER_FAILURE!.headers['gatewayresponse.header.Retry-After']).toBe("'1'");
    expect(render(all.DEFAULT_5XX!.template, undefined)).toEqual({ error: 'Internal server error' });
  });

  it('lets browsers read every gateway error (CORS)', () => {
    for (const [type, r] of Object.entries(gatewayResponses())) {
      expect(r.headers['gatewayresponse.header.Access-Control-Allow-Origin'], type).toBe("'*'");
      expect(() => render(r.template, undefined), type).not.toThrow();
    }
  });
});

/**
 * The REST API: one resource and method per ROUTES entry (so routes added later appear here without
 * changes), the key authorizer on api-key routes, usage plans per key plan, CORS preflight on the
 * public routes (and on the admin routes for the dashboard's origin, addAdminPreflights) and the
 * gateway's own error responses.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  AwsIntegration,
  CfnAuthorizer,
  ContentHandling,
  EndpointType,
  LogGroupLogDestination,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  RestApi,
  type Resource,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { ADMIN_PREFLIGHT_STATIC_HEADERS, CORS_ALLOW_HEADERS, PREFLIGHT_HEADER_LIST_PATTERN, PREFLIGHT_STATIC_HEADERS } from '../../lambdas/contract/cors';
import { ROUTES, type RouteName } from '../../lambdas/routes';
import { throttleFor, usagePlanName } from '../../lambdas/contract/usage-plans';
import { GATEWAY_ERRORS, GATEWAY_RESPONSE_HEADERS } from './gateway-responses';

export type SharedPlan = 'free' | 'pro';

export interface TallyApiProps {
  stageName: string;
  /** The function of each route. */
  handlers: Record<RouteName, IFunction>;
  authorizer: IFunction;
  /** Requests per minute of the shared plans. */
  planLimits: Record<SharedPlan, number>;
  /** Prefix of the usage plan names (the rate-limit registry finds the plans by name). */
  planPrefix: string;
  /** Write API Gateway access logs (needs the account-level API Gateway CloudWatch role). */
  accessLogs: boolean;
  logRetention: RetentionDays;
}

/**
 * Requests per minute, all callers together, that may reach a handler without a valid key (to get its
 * 401). Bounds what invalid keys cost in Lambda invocations; beyond it they get the gateway's 429.
 */
export const UNAUTHENTICATED_LIMIT_PER_MINUTE = 6000;

export class TallyApi extends Construct {
  readonly api: RestApi;
  readonly plans: Record<SharedPlan, UsagePlan>;
  readonly authorizer: RequestAuthorizer;
  /**
   * The value of the API key the authorizer names for a request without a valid key
   * (UNAUTHENTICATED_USAGE_KEY), so the request reaches its handler, which answers 401 in the path's
   * shape (lib/api/gateway-responses.ts says why not a gateway response). Not a secret: it admits no
   * one, since the authorizer alone chooses the usage identifier. Named after the stack: API key
   * values are unique in an account and region.
   */
  readonly unauthenticatedKeyValue: string;
  /** The resources of the admin routes, for their preflight (addAdminPreflights). */
  private readonly adminResources = new Map<string, Resource>();

  /**
   * OPTIONS on every admin path, allowing `dashboardOrigin` only (lambdas/contract/cors.ts
   * adminPreflightHeaders). Called once the dashboard's distribution exists (lib/tally-stack.ts).
   */
  addAdminPreflights(dashboardOrigin: string): void {
    for (const resource of this.adminResources.values()) {
      addPreflightMock(resource, ADMIN_PREFLIGHT_STATIC_HEADERS, ['Access-Control-Allow-Origin'], adminPreflightResponseTemplate(dashboardOrigin));
    }
  }

  constructor(scope: Construct, id: string, props: TallyApiProps) {
    super(scope, id);
    const accessLogGroup = props.accessLogs
      ? new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY })
      : undefined;

    this.api = new RestApi(this, 'Api', {
      restApiName: Stack.of(this).stackName,
      description: 'Tally: event ingestion, experiments and the admin API',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Handlers receive every body base64-encoded and decode it themselves: gzip passes untouched.
      binaryMediaTypes: ['*/*'],
      // The authorizer returns the key's usage identifier, so usage plans throttle per key.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Access logging needs the account's API Gateway CloudWatch role. CDK creates it and the
      // account setting (AWS::ApiGateway::Account) and makes the stage depend on that setting. Kept on
      // delete (other APIs of the account may log through it) but deleted when the create that made it
      // rolls back, like the data (docs/decisions/first-deploy-rollback.md).
      cloudWatchRole: props.accessLogs,
      ...(props.accessLogs ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE } : {}),
      deployOptions: {
        stageName: props.stageName,
        ...(accessLogGroup
          ? {
              accessLogDestination: new LogGroupLogDestination(accessLogGroup),
              accessLogFormat: AccessLogFormat.custom(
                JSON.stringify({
                  requestId: '$context.requestId',
                  time: '$context.requestTimeEpoch',
                  method: '$context.httpMethod',
                  resource: '$context.resourcePath',
                  status: '$context.status',
                  errorType: '$context.error.responseType',
                  latencyMs: '$context.responseLatency',
                  integrationLatencyMs: '$context.integrationLatency',
                  // Why the integration failed: for a 500 whose function never ran, Lambda's refusal
                  // (throttling: "Rate Exceeded", the account's concurrency used up).
                  integrationError: '$context.integration.error',
                  authorizerStatus: '$context.authorizer.status',
                  authorizerLatencyMs: '$context.authorizer.latency',
                  keyId: '$context.authorizer.key_id',
                  projectId: '$context.authorizer.project_id',
                  responseBytes: '$context.responseLength',
                }),
              ),
            }
          : {}),
      },
    });

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason: 'Bodies are binary (base64, often gzip) and are validated by the handlers (zod); a gateway JSON-schema validator cannot read them.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason: 'WAF is optional (billed per rule and request); the authorizer, usage plans and handler limits guard the API.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason: 'Access logs are on (one JSON line per request); execution logs would record request and response bodies, which hold user data.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: "The account-level role API Gateway needs to write access logs; AWS's managed policy is the documented one.",
      },
    );

    if (!props.accessLogs) {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG1',
        reason:
          'Access logs turned off by the operator (apiAccessLogs: false), e.g. while the account-level API Gateway CloudWatch role cannot be created; docs/deploy.md, "First deploy on a new account".',
      });
    }

    this.authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: props.authorizer,
      // No identity sources: a request without Authorization still reaches the authorizer, which
      // gives it the path's 401 body (with an identity source API Gateway would answer by itself).
      identitySources: [],
      // No result cache: its key would be the identity sources, and caching on Authorization alone
      // would replay one request's Origin decision for another. The function caches key records.
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK renders an empty IdentitySource; CloudFormation wants it absent when caching is off.
    (this.authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    const preflight = new Set<string>();
    for (const route of ROUTES) {
      const resource = this.api.root.resourceForPath(route.path);
      const integration = routeIntegration(this.api, props.stageName, route, props.handlers[route.name]);
      if (route.auth === 'api-key') {
        const method = resource.addMethod(route.method, integration, {
          authorizer: this.authorizer,
          authorizationType: AuthorizationType.CUSTOM,
          apiKeyRequired: true,
        });
        Validations.of(method).acknowledge({
          id: 'AwsSolutions-COG4',
          reason: 'Clients authenticate with project API keys, checked by the Lambda authorizer; there are no Cognito users.',
        });
        if (!preflight.has(route.path)) {
          preflight.add(route.path);
          addPreflight(resource);
        }
      } else {
        // The admin handlers check the admin bearer token themselves (token in Secrets Manager).
        this.adminResources.set(route.path, resource);
        const method = resource.addMethod(route.method, integration, { authorizationType: AuthorizationType.NONE });
        Validations.of(method).acknowledge(
          {
            id: 'AwsSolutions-APIG4',
            reason: 'Admin routes authenticate in the handler against the admin token held in Secrets Manager (constant-time comparison).',
          },
          {
            id: 'AwsSolutions-COG4',
            reason: 'Admin routes authenticate with the admin token from Secrets Manager; there are no Cognito users.',
          },
        );
      }
    }

    const stage = this.api.deploymentStage;
    const plan = (name: SharedPlan) =>
      this.api.addUsagePlan(`${name[0]!.toUpperCase()}${name.slice(1)}Plan`, {
        name: usagePlanName(props.planPrefix, name),
        description: `Tally ${name} plan: ${props.planLimits[name]} requests per minute per key`,
        throttle: throttleFor(props.planLimits[name]),
        apiStages: [{ api: this.api, stage }],
      });
    this.plans = { free: plan('free'), pro: plan('pro') };

    this.unauthenticatedKeyValue = `${Stack.of(this).stackName.slice(0, 80)}-unauthenticated-requests`;
    const unauthenticated = this.api.addUsagePlan('UnauthenticatedPlan', {
      name: `${props.planPrefix}unauthenticated`,
      description: `Tally: requests without a valid key, admitted to their handler's 401 (${UNAUTHENTICATED_LIMIT_PER_MINUTE} per minute in all)`,
      throttle: throttleFor(UNAUTHENTICATED_LIMIT_PER_MINUTE),
      apiStages: [{ api: this.api, stage }],
    });
    unauthenticated.addApiKey(
      this.api.addApiKey('UnauthenticatedKey', {
        apiKeyName: `${props.planPrefix}unauthenticated`,
        description: 'Named by the authorizer for requests without a valid key (never a client key)',
        value: this.unauthenticatedKeyValue,
      }),
    );

    for (const spec of GATEWAY_ERRORS) {
      this.api.addGatewayResponse(spec.id, {
        type: spec.type,
        ...(spec.statusCode ? { statusCode: spec.statusCode } : {}),
        templates: { 'application/json': spec.template },
        responseHeaders: { ...GATEWAY_RESPONSE_HEADERS, ...spec.headers },
      });
    }
  }
}

/**
 * A Lambda proxy integration whose invoke permission lives with the function, in its nested stack
 * (lib/route-stacks.ts), not with the method. CDK's LambdaIntegration puts the permission beside the
 * method, in the parent stack: one resource per route there. Scoped as LambdaIntegration scopes it, to
 * this method on this stage (path parameters as *), but with the stage's name, not a reference to the
 * stage: the stage depends on the deployment, which depends on the methods, which depend on the nested
 * stack's functions, so a reference back would be a cycle between the two stacks.
 */
function routeIntegration(api: RestApi, stageName: string, route: { method: string; path: string }, handler: IFunction): AwsIntegration {
  handler.addPermission(`ApiPermission-${route.method}`, {
    principal: new ServicePrincipal('apigateway.amazonaws.com'),
    sourceArn: api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]*\}/g, '*'), stageName),
  });
  return new AwsIntegration({ proxy: true, service: 'lambda', path: `2015-03-31/functions/${handler.functionArn}/invocations` });
}

/**
 * The admin preflight's template: Access-Control-Allow-Origin only when Origin is the dashboard's
 * (lambdas/contract/cors.ts adminPreflightHeaders), set through $context.responseOverride.header
 * as in preflightResponseTemplate. Any other Origin gets the static headers only, so the browser
 * refuses the call.
 */
export function adminPreflightResponseTemplate(dashboardOrigin: string): string {
  return [
    ...readHeader('origin', 'Origin'),
    `#if("$!origin" == "${dashboardOrigin}")`,
    '  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
    '#end',
  ].join('\n');
}

/** Velocity lines setting $variable to a request header, looked up in both spellings (HTTP/2 sends lower case). */
function readHeader(variable: string, name: string): string[] {
  return [
    `#set($${variable} = $input.params().header.get("${name}"))`,
    `#if("$!${variable}" == "")`,
    `  #set($${variable} = $input.params().header.get("${name.toLowerCase()}"))`,
    '#end',
  ];
}

/**
 * OPTIONS for browsers, answering as the local server does (lambdas/contract/cors.ts preflightHeaders).
 * CDK's addCorsPreflight cannot be used: with binaryMediaTypes ["*\/*"] a mock integration only maps
 * its templates when told to convert the (binary) body to text.
 *
 * Static response parameters give the fallback values; the integration response template then
 * reflects Origin, and Access-Control-Request-Headers when it is a well-formed header list, through
 * $context.responseOverride.header (documented in "Override your API's request and response
 * parameters and status codes for REST APIs in API Gateway"; CDK's own addCorsPreflight reflects
 * Origin this way). The list is checked with String.matches, a whole-string match, against the same
 * pattern the local server uses. Header names are looked up in both spellings browsers use (HTTP/2
 * sends them lower-case), as CDK does for Origin.
 */
export function preflightResponseTemplate(): string {
  return [
    ...readHeader('origin', 'Origin'),
    ...readHeader('requested', 'Access-Control-Request-Headers'),
    '#if("$!origin" != "")',
    '  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
    '#end',
    `#if("$!requested" != "" && $requested.matches("${PREFLIGHT_HEADER_LIST_PATTERN}"))`,
    '  #set($context.responseOverride.header.Access-Control-Allow-Headers = $requested)',
    '#end',
  ].join('\n');
}

function addPreflight(resource: Resource): void {
  addPreflightMock(
    resource,
    {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Retry-After',
      ...PREFLIGHT_STATIC_HEADERS,
      'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
    },
    [],
    preflightResponseTemplate(),
  );
}

/**
 * A mock answering OPTIONS with 204, `staticHeaders`, and what the template overrides. Headers only
 * the template sets (`overriddenHeaders`) are declared in the method response without a value.
 */
function addPreflightMock(resource: Resource, staticHeaders: Record<string, string>, overriddenHeaders: string[], template: string): void {
  const method = resource.addMethod(
    'OPTIONS',
    new MockIntegration({
      contentHandling: ContentHandling.CONVERT_TO_TEXT,
      passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
      requestTemplates: { 'application/json': '{"statusCode": 204}' },
      integrationResponses: [
        {
          statusCode: '204',
          responseParameters: Object.fromEntries(Object.entries(staticHeaders).map(([k, v]) => [`method.response.header.${k}`, `'${v}'`])),
          // The template must run on a text body, as the request template does.
          contentHandling: ContentHandling.CONVERT_TO_TEXT,
          responseTemplates: { 'application/json': template },
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: '204',
          responseParameters: Object.fromEntries([...Object.keys(staticHeaders), ...overriddenHeaders].map((k) => [`method.response.header.${k}`, true])),
        },
      ],
    },
  );
  Validations.of(method).acknowledge(
    { id: 'AwsSolutions-APIG4', reason: 'CORS preflight (OPTIONS) must be answered without credentials; it is a mock that reaches no function.' },
    { id: 'AwsSolutions-COG4', reason: 'CORS preflight (OPTIONS) must be answered without credentials.' },
  );
}

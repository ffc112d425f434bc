/**
 * The one place the defaults every Lambda shares are fixed, so each function states only what is
 * particular to it (entry, environment, grants). `npm run build` (bin/build.ts) bundles with the same
 * BUNDLING options, so the sizes it prints are the sizes deployed.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyDocument, Role, ServicePrincipal, type AddToPrincipalPolicyResult, type PolicyStatement, type RoleProps } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, SystemLogLevel, ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LambdaEnvName } from '../lambdas/lambda-env';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const entryFile = (name: string) => join(REPO_ROOT, 'lambdas', 'entry', `${name}.ts`);

export const RUNTIME = Runtime.NODEJS_22_X;
export const ESBUILD_TARGET = 'node22';

/**
 * esbuild options, shared with bin/build.ts. CommonJS output: it needs no createRequire banner. Every
 * package is bundled, the AWS SDK's clients included (externalModules empty: NodejsFunction would
 * otherwise leave @aws-sdk/* to the runtime), so what runs is what package-lock.json pins, not
 * whichever SDK the runtime ships; a bundled, minified SDK also loads faster than the runtime's
 * (docs/decisions/ingestion-cold-start.md). Source maps without sources content keep the .map small;
 * NODE_OPTIONS=--enable-source-maps makes stack traces use them.
 */
export const BUNDLING = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: ESBUILD_TARGET,
  format: OutputFormat.CJS,
  externalModules: [],
  // Prefer packages' ES module builds: esbuild tree-shakes them (zod, middy).
  mainFields: ['module', 'main'],
  loader: { '.sql': 'text' as const },
} satisfies BundlingOptions;

/**
 * NODE_OPTIONS of every function: stack traces name the source files (through the bundle's source
 * map). `npm run bench:ingest` measures the cold load with it, as deployed.
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface TallyFunctionProps {
  /** Entry file name under lambdas/entry/, without .ts (a route name, or "authorizer"). */
  entry: string;
  description: string;
  /** Variables declared in lambdas/lambda-env.ts, and only those. */
  environment?: Partial<Record<LambdaEnvName, string>>;
  /** Files copied into the bundle's directory (deployed under /var/task/). */
  copyFiles?: Array<{ from: string; to: string }>;
  logLevel: LogLevel;
  logRetention: RetentionDays;
  memorySize: number;
  timeout: Duration;
}

const APPLICATION_LEVELS: Record<LogLevel, ApplicationLogLevel> = {
  debug: ApplicationLogLevel.DEBUG,
  info: ApplicationLogLevel.INFO,
  warn: ApplicationLogLevel.WARN,
  error: ApplicationLogLevel.ERROR,
};

/**
 * A role whose grants are one inline policy in the role's own resource (its `Policies`), not a
 * separate AWS::IAM::Policy: the same inline policy to IAM (an AWS::IAM::Policy is an inline policy of
 * the roles it names), one CloudFormation resource fewer per function, of the 500 a stack may hold
 * (test/stack/resource-count.test.ts). Grants (lib/grants.ts, the CDK's grant methods) add their
 * statements to it; the document is resolved at synthesis, after every grant.
 */
export class InlinePolicyRole extends Role {
  private readonly routePolicy: PolicyDocument;

  constructor(scope: Construct, id: string, props: RoleProps) {
    const grants = new PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { ...props.inlinePolicies, grants } });
    this.routePolicy = grants;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.routePolicy.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}

/**
 * A NodejsFunction with Tally's defaults: Node.js 22 on arm64, JSON logs, its own log group, and a role
 * that may only write that log group until lib/grants.ts adds what the route needs (no managed policy).
 */
export class TallyFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: TallyFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      // Logs carry IDs and counts only (never payloads or keys): nothing worth keeping after teardown.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new InlinePolicyRole(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Tally function ${props.entry}`,
    });
    this.logGroup.grantWrite(this.role);
    this.fn = new NodejsFunction(this, 'Function', {
      role: this.role,
      entry: entryFile(props.entry),
      handler: 'handler',
      description: props.description,
      runtime: RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LEVELS[props.logLevel],
      systemLogLevelV2: SystemLogLevel.WARN,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      projectRoot: REPO_ROOT,
      bundling: props.copyFiles?.length
        ? {
            ...BUNDLING,
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (_input: string, output: string) => props.copyFiles!.map((f) => `cp "${f.from}" "${output}/${f.to}"`),
            },
          }
        : BUNDLING,
      environment: {
        NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
        TALLY_LOG_LEVEL: props.logLevel,
        ...props.environment,
      } satisfies Partial<Record<LambdaEnvName, string>>,
    });
    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 is the runtime Tally targets (same major as local development and its tests); moving to 24 is a deliberate upgrade.',
    });
  }
}

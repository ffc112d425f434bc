/**
 * The dashboard on AWS: its built files in a private S3 bucket, served by CloudFront through origin
 * access control (the bucket has no website hosting and no public access; only this distribution
 * may read it), with the dashboard's Content-Security-Policy and the usual security headers on every
 * response. The app uses hash routes (#/projects/...), so every request is for a real file and
 * neither S3 nor CloudFront needs a fallback rewrite (docs/decisions/dashboard-hash-routes.md).
 *
 * What is deployed:
 * - the app, built by dashboard/build.ts during synthesis (the asset's local bundling; no Docker, no
 *   network, no credentials), hashed files under assets/ cached for a year, index.html no-cache;
 * - config.json, written at deploy time with the API's stage URL (lambdas/contract/dashboard.ts);
 * - the SDK (sdk/scripts/distribution.ts), built during synthesis the same way: the script-tag build
 *   at sdk/<version>/tally.min.js and the npm package at sdk/<version>/tally-sdk-<version>.tgz, kept
 *   across deploys so every version an app pinned stays, served to any origin (CORS `*`) for script
 *   tags with an integrity attribute; and sdk/manifest.json naming the current ones, for the Install page.
 *
 * No dependency cycle: the admin functions read `origin` (the distribution's domain), the
 * distribution's CSP names the API by its RestApi ID (not its stage, which depends on those
 * functions), and only the BucketDeployment, on which nothing depends, reads the stage URL.
 */
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  type PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source, type ISource } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDashboardSync } from '../dashboard/build';
import {
  DASHBOARD_CONFIG_FILE,
  dashboardCsp,
  SDK_FILE_HEADERS,
  SDK_MANIFEST_FILE,
  type DashboardConfig,
  type DashboardSignIn,
} from '../lambdas/contract/dashboard';
import { buildSdkSync, SDK_DIR, sdkDistribution, writeSdkDistribution } from '../sdk/scripts/distribution';
import { secureBucket } from './buckets';
import { REPO_ROOT } from './function';

export const DASHBOARD_INDEX = 'index.html';
/** Where the build puts its hashed files (dashboard/build.ts). */
export const DASHBOARD_ASSETS = 'assets/*';
/** Hashed names change with their content: browsers and CloudFront may keep them for a year. */
export const ASSETS_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** index.html and config.json name what to load: revalidated on every visit. */
export const ENTRY_CACHE_CONTROL = 'no-cache';
/** The SDK's versioned files (sdk/<version>/…): a day, so a rebuild of the same version reaches browsers within one. */
export const SDK_CACHE_CONTROL = 'public, max-age=86400';
/** Where the SDK's versioned files are (sdk/scripts/distribution.ts); the manifest is beside them. */
export const SDK_FILES = 'sdk/*';

export interface DashboardProps {
  api: RestApi;
  /** The API's {base_url} for apps (the ApiUrl output: CloudFront's URL when it fronts the API), shown in the install snippet. */
  baseUrl: string;
  /** Where the bucket's S3 server access logs go. */
  accessLogs: Bucket;
  priceClass: PriceClass;
  /** How long the deployments' log lines are kept (the functions' logRetention). */
  logRetention: RetentionDays;
  /** People's sign-in: written into config.json; its origins (discovery, keys, token endpoint) join the CSP's connect-src. */
  signIn?: { config: DashboardSignIn; origins: string[] };
}

/**
 * The app built into a directory, as an asset. Built by dashboard/build.ts in-process (local bundling
 * always succeeds, so the Docker image named here is never pulled). The asset's hash is the output's
 * (AssetHashType.OUTPUT): the app also imports lambdas/contract, outside the dashboard folder.
 */
export function dashboardSource(): ISource {
  return Source.asset(join(REPO_ROOT, 'dashboard'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
      local: {
        tryBundle(outputDir: string) {
          buildDashboardSync(outputDir);
          return true;
        },
      },
    },
  });
}

/** The SDK's files, built by sdk/scripts/distribution.ts in-process during synthesis, like the app. */
export function sdkSource(): ISource {
  return Source.asset(SDK_DIR, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
      local: {
        tryBundle(outputDir: string) {
          // Built beside the asset, not into sdk/dist (tests may be reading it meanwhile).
          const distDir = mkdtempSync(join(tmpdir(), 'tally-sdk-build-'));
          try {
            buildSdkSync(distDir);
            writeSdkDistribution(outputDir, sdkDistribution(distDir));
          } finally {
            rmSync(distDir, { recursive: true, force: true });
          }
          return true;
        },
      },
    },
  });
}

export class Dashboard extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** https://<distribution domain>: the origin admin responses allow (DASHBOARD_ORIGIN). */
  readonly origin: string;
  /** https://<distribution domain>/: where to open the dashboard. */
  readonly url: string;
  /** The API's origin, the one the CSP lets the dashboard call. */
  readonly apiOrigin: string;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // Build output only: nothing to keep when the stack goes. Emptied by CDK's auto-delete resource:
    // the deployments below do not empty a bucket they tag as their own (their handler skips it).
    this.bucket = secureBucket(this, 'Bucket', {
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
      accessLogs: { bucket: props.accessLogs, prefix: 'dashboard/' },
    });

    this.apiOrigin = `https://${props.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Tally dashboard: CSP and security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: dashboardCsp(this.apiOrigin, props.signIn?.origins), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    // The SDK's files: any page may load them (a script tag with integrity="…" crossorigin="anonymous"
    // needs Access-Control-Allow-Origin); CloudFront adds the CORS headers to CORS requests.
    const sdkHeaders = new ResponseHeadersPolicy(this, 'SdkHeaders', {
      comment: 'Tally SDK files: any origin may load them',
      corsBehavior: {
        accessControlAllowCredentials: false,
        accessControlAllowHeaders: ['*'],
        accessControlAllowMethods: ['GET', 'HEAD'],
        accessControlAllowOrigins: [SDK_FILE_HEADERS['Access-Control-Allow-Origin']],
        originOverride: true,
      },
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
      },
      customHeadersBehavior: {
        customHeaders: [{ header: 'Cross-Origin-Resource-Policy', value: SDK_FILE_HEADERS['Cross-Origin-Resource-Policy'], override: true }],
      },
    });

    const origin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    const behavior = {
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      // Honours each object's Cache-Control (set by the deployments below), compresses.
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: headers,
      compress: true,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Tally dashboard',
      defaultRootObject: DASHBOARD_INDEX,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass,
      defaultBehavior: behavior,
      additionalBehaviors: { [SDK_FILES]: { ...behavior, responseHeadersPolicy: sdkHeaders } },
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'The dashboard is used by the team wherever it works; no geo restriction.' },
      { id: 'AwsSolutions-CFR2', reason: 'Static files behind the admin token; WAF is billed per rule and request and protects nothing here.' },
      {
        id: 'AwsSolutions-CFR3',
        reason: 'Static build output only; the admin API it calls is access-logged by API Gateway, and the bucket has S3 server access logs.',
      },
      { id: 'AwsSolutions-CFR4', reason: 'The default *.cloudfront.net certificate fixes the minimum TLS version; use a custom domain to raise it.' },
    );

    this.origin = `https://${this.distribution.distributionDomainName}`;
    this.url = `${this.origin}/`;

    // The deployments' function (one for the three, CDK's) writes to this log group, created before the
    // function. Without it, CDK creates /aws/lambda/<function> after the function, and a deployment that
    // invokes the function in between makes Lambda create that group first: the stack's create then
    // fails with "already exists" (aws/aws-cdk issues 667 and 34612). A generated name Lambda never
    // creates by itself; kept after a rolled-back create, whose failure its lines explain (it blocks
    // nothing: docs/decisions/first-deploy-rollback.md).
    const logGroup = new LogGroup(this, 'DeployLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.RETAIN });
    const app = dashboardSource();
    // Hashed files first, kept across deploys (an open page may still load the previous ones).
    const assets = new BucketDeployment(this, 'DeployAssets', {
      destinationBucket: this.bucket,
      sources: [app],
      exclude: ['*'],
      include: [DASHBOARD_ASSETS],
      prune: false,
      retainOnDelete: false,
      logGroup,
      cacheControl: [CacheControl.fromString(ASSETS_CACHE_CONTROL)],
    });
    // The SDK's versioned files, kept across deploys (an app may pin an older version's URL and hash).
    const sdk = sdkSource();
    const sdkFiles = new BucketDeployment(this, 'DeploySdk', {
      destinationBucket: this.bucket,
      sources: [sdk],
      exclude: [SDK_MANIFEST_FILE],
      prune: false,
      retainOnDelete: false,
      logGroup,
      cacheControl: [CacheControl.fromString(SDK_CACHE_CONTROL)],
    });
    const config: DashboardConfig = { apiUrl: props.api.url, baseUrl: props.baseUrl, ...(props.signIn ? { signIn: props.signIn.config } : {}) };
    const entry = new BucketDeployment(this, 'DeployEntry', {
      destinationBucket: this.bucket,
      sources: [app, Source.jsonData(DASHBOARD_CONFIG_FILE, config), sdk],
      // aws s3 sync's filters: the later --include wins over the --exclude before it.
      exclude: [DASHBOARD_ASSETS, SDK_FILES],
      include: [SDK_MANIFEST_FILE],
      prune: false,
      retainOnDelete: false,
      logGroup,
      cacheControl: [CacheControl.fromString(ENTRY_CACHE_CONTROL)],
    });
    entry.node.addDependency(assets, sdkFiles);
    acknowledgeDeploymentHandler(Stack.of(this), this.bucket);
  }
}

/** cdk-nag's findings on the function CDK's BucketDeployment runs (one per stack, created by CDK). */
function acknowledgeDeploymentHandler(stack: Stack, bucket: Bucket): void {
  const handler = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!handler) throw new Error('lib/dashboard.ts: the BucketDeployment handler was not found; check the acknowledgments below');
  const copies = "Written by CDK's BucketDeployment: it copies the build from the CDK asset bucket into the dashboard bucket and deletes what it replaces.";
  Validations.of(handler).acknowledge(
    { id: 'AwsSolutions-L1', reason: "CDK's BucketDeployment handler; its runtime is chosen by aws-cdk-lib and moves with it." },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "CDK's BucketDeployment handler writes its own logs with the managed basic execution policy; it runs only during deploys.",
    },
    ...['Action::s3:GetBucket*', 'Action::s3:GetObject*', 'Action::s3:List*', 'Action::s3:Abort*', 'Action::s3:DeleteObject*'].map((finding) => ({
      id: `AwsSolutions-IAM5[${finding}]`,
      reason: copies,
    })),
    ...[
      'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      `Resource::<${stack.resolve(stack.getLogicalId(bucket.node.defaultChild as CfnElement))}.Arn>/*`,
    ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: copies })),
  );
}

/**
 * The dashboard on AWS (lib/dashboard.ts): a private bucket only CloudFront reads (origin access
 * control), the CSP and security headers, the deployed config.json naming the API, the DashboardUrl
 * output, and admin CORS for the dashboard's origin alone (the functions' DASHBOARD_ORIGIN and the
 * admin OPTIONS mocks). Plus: the template has no dependency cycle (the CSP names the API, the admin
 * functions name the distribution).
 */
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { AnyPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFLIGHT_STATIC_HEADERS } from '../../lambdas/contract/cors';
import { DASHBOARD_CONFIG_FILE, SDK_FILE_HEADERS, SDK_MANIFEST_FILE, type DashboardConfig } from '../../lambdas/contract/dashboard';
import { ROUTES } from '../../lambdas/routes';
import { adminPreflightResponseTemplate } from '../../lib/api/api';
import { ASSETS_CACHE_CONTROL, ENTRY_CACHE_CONTROL, SDK_CACHE_CONTROL } from '../../lib/dashboard';
import { TallyStack } from '../../lib/tally-stack';
import { mergedTemplate, synthStack, testApp, type Synth } from './synth';

let s: Synth;
let json: { Resources: Record<string, any>; Outputs: Record<string, any> };
beforeAll(() => {
  s = synthStack();
  json = s.template.toJSON() as typeof json;
});

const idOf = (construct: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(construct.node.defaultChild as never);
const ofType = (template: { Resources: Record<string, any> }, type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);

/**
 * Why the dashboard bucket would be readable by anyone but its distribution, or nothing. Checks the
 * public access block, website hosting, ACLs and every Allow of the bucket policy.
 */
const AUTO_DELETE_ROLE = 'CustomS3AutoDeleteObjectsCustomResourceProviderRole3B1BD092';

function publicAccessProblems(template: { Resources: Record<string, any> }, bucketId: string, distributionId: string): string[] {
  const problems: string[] = [];
  const bucket = template.Resources[bucketId].Properties;
  const block = bucket.PublicAccessBlockConfiguration ?? {};
  for (const flag of ['BlockPublicAcls', 'BlockPublicPolicy', 'IgnorePublicAcls', 'RestrictPublicBuckets']) {
    if (block[flag] !== true) problems.push(`${flag} is not true`);
  }
  if (bucket.WebsiteConfiguration) problems.push('website hosting is on');
  if (bucket.AccessControl && bucket.AccessControl !== 'Private') problems.push(`ACL ${bucket.AccessControl}`);
  const policies = ofType(template, 'AWS::S3::BucketPolicy').filter(([, p]) => JSON.stringify(p.Properties.Bucket).includes(bucketId));
  for (const [, policy] of policies) {
    for (const st of policy.Properties.PolicyDocument.Statement) {
      if (st.Effect !== 'Allow') continue;
      const cloudfront = JSON.stringify(st.Principal) === JSON.stringify({ Service: 'cloudfront.amazonaws.com' });
      const sourceArn = st.Condition?.StringEquals?.['AWS:SourceArn'];
      // CDK's auto-delete handler (empties the bucket when the stack is deleted) is named by its role's
      // ARN in the policy; the BucketDeployment handler gets access through its role.
      if (JSON.stringify(st.Principal) === JSON.stringify({ AWS: { 'Fn::GetAtt': [AUTO_DELETE_ROLE, 'Arn'] } })) continue;
      if (!cloudfront) problems.push(`policy allows ${JSON.stringify(st.Principal)}`);
      else if (!JSON.stringify(sourceArn ?? '').includes(distributionId)) problems.push('CloudFront read is not limited to the distribution (AWS:SourceArn)');
      const actions = ([] as string[]).concat(st.Action);
      if (actions.some((a) => a !== 's3:GetObject')) problems.push(`policy allows ${actions.join(', ')}`);
    }
  }
  return problems;
}

describe('dashboard bucket', () => {
  it('is private: public access blocked, no website hosting, only the distribution reads it through OAC', () => {
    const bucketId = idOf(s.stack.dashboard!.bucket);
    const distributionId = idOf(s.stack.dashboard!.distribution);
    expect(publicAccessProblems(json, bucketId, distributionId)).toEqual([]);
    const bucket = json.Resources[bucketId].Properties;
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    // TLS only.
    const policy = ofType(json, 'AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket).includes(bucketId))![1];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('the check fails when the bucket becomes public (a policy for anyone, or the access block removed)', () => {
    const app = testApp();
    const stack = new TallyStack(app, 'Tally');
    stack.dashboard!.bucket.addToResourcePolicy(
      new PolicyStatement({ principals: [new AnyPrincipal()], actions: ['s3:GetObject'], resources: [stack.dashboard!.bucket.arnForObjects('*')] }),
    );
    (stack.dashboard!.bucket.node.defaultChild as CfnBucket).publicAccessBlockConfiguration = { blockPublicPolicy: false };
    (stack.dashboard!.bucket.node.defaultChild as CfnBucket).websiteConfiguration = { indexDocument: 'index.html' };
    const template = mergedTemplate(stack).toJSON() as typeof json;
    const problems = publicAccessProblems(
      template,
      stack.getLogicalId(stack.dashboard!.bucket.node.defaultChild as never),
      stack.getLogicalId(stack.dashboard!.distribution.node.defaultChild as never),
    );
    expect(problems).toEqual(expect.arrayContaining(['BlockPublicPolicy is not true', 'website hosting is on', 'policy allows {"AWS":"*"}']));
  });

  it("is destroyed with the stack, emptied first by CDK's auto-delete handler (it holds build output only)", () => {
    const bucketId = idOf(s.stack.dashboard!.bucket);
    expect(json.Resources[bucketId].DeletionPolicy).toBe('Delete');
    // The deployments' handler never empties a bucket it tagged as its own, so deletion needs auto-delete.
    const autoDeletes = ofType(json, 'Custom::S3AutoDeleteObjects').filter(([, r]) => JSON.stringify(r.Properties.BucketName).includes(bucketId));
    expect(autoDeletes).toHaveLength(1);
    for (const [, d] of ofType(json, 'Custom::CDKBucketDeployment')) expect(d.Properties.RetainOnDelete).toBe(false);
  });
});

describe('dashboard distribution', () => {
  const distribution = () => json.Resources[idOf(s.stack.dashboard!.distribution)].Properties.DistributionConfig;

  it('reads the bucket through origin access control, serves index.html at /, redirects HTTP to HTTPS', () => {
    const config = distribution();
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0].OriginAccessControlId).toBeDefined();
    expect(config.Origins[0].S3OriginConfig.OriginAccessIdentity).toBe('');
    const [[oacId, oac]] = ofType(json, 'AWS::CloudFront::OriginAccessControl') as [[string, any]];
    expect(config.Origins[0].OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' });
    // Hash routes: no error-page rewrite to index.html.
    expect(config.CustomErrorResponses).toBeUndefined();
  });

  it('serves the SDK files to any origin (CORS *, Cross-Origin-Resource-Policy) through their own behaviour', () => {
    const [sdkBehavior, ...others] = distribution().CacheBehaviors;
    expect(others).toEqual([]);
    expect(sdkBehavior).toMatchObject({ PathPattern: 'sdk/*', ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'] });
    expect(sdkBehavior.TargetOriginId).toBe(distribution().DefaultCacheBehavior.TargetOriginId);
    const policy = json.Resources[sdkBehavior.ResponseHeadersPolicyId.Ref].Properties.ResponseHeadersPolicyConfig;
    expect(policy.CorsConfig).toMatchObject({
      AccessControlAllowCredentials: false,
      AccessControlAllowOrigins: { Items: [SDK_FILE_HEADERS['Access-Control-Allow-Origin']] },
      AccessControlAllowMethods: { Items: ['GET', 'HEAD'] },
      OriginOverride: true,
    });
    expect(policy.CustomHeadersConfig.Items).toEqual([
      { Header: 'Cross-Origin-Resource-Policy', Value: SDK_FILE_HEADERS['Cross-Origin-Resource-Policy'], Override: true },
    ]);
    expect(policy.SecurityHeadersConfig.ContentTypeOptions).toEqual({ Override: true });
  });

  it("sends the dashboard's CSP (no inline script, the API's origin for connect-src) and the security headers", () => {
    const policyRef = distribution().DefaultCacheBehavior.ResponseHeadersPolicyId.Ref;
    const headers = json.Resources[policyRef].Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(s.stack.resolve(headers.ContentSecurityPolicy.ContentSecurityPolicy));
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("default-src 'none'");
    // connect-src names the API by its RestApi ID (not its stage: no cycle).
    expect(csp).toContain(`connect-src 'self' https://`);
    expect(csp).toContain(idOf(s.stack.api.api));
    expect(csp).toContain('.execute-api.');
    expect(headers.ContentSecurityPolicy.Override).toBe(true);
    expect(headers.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31536000, Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
  });
});

describe('dashboard sign-in', () => {
  /** config.json as the deployment writes it, with its markers replaced by what they resolve to. */
  const deployedConfig = (synth: Synth) => {
    const deploy = synth.stack.dashboard!.node.findChild('DeployEntry');
    const entry = synth.template.toJSON().Resources[synth.stack.getLogicalId(deploy.node.findChild('CustomResource').node.defaultChild as never)].Properties;
    const dir = deploy.node.children
      .filter((c): c is Asset => c instanceof Asset)
      .map((a) => (a.node.findChild('Stage') as unknown as { absoluteStagedPath: string }).absoluteStagedPath)
      .find((d) => existsSync(join(d, DASHBOARD_CONFIG_FILE)))!;
    const markers = Object.assign({}, ...(entry.SourceMarkers as Array<Record<string, unknown>>));
    const text = readFileSync(join(dir, DASHBOARD_CONFIG_FILE), 'utf8').replace(/<<marker:0xbaba:\d+>>/g, (m) => JSON.stringify(markers[m]).replace(/"/g, "'"));
    return JSON.parse(text) as DashboardConfig;
  };
  const cspOf = (synth: Synth) => {
    const json = synth.template.toJSON();
    const dist = Object.values(json.Resources as Record<string, any>).find((r) => r.Type === 'AWS::CloudFront::Distribution')!;
    const policy = json.Resources[dist.Properties.DistributionConfig.DefaultCacheBehavior.ResponseHeadersPolicyId.Ref];
    return JSON.stringify(synth.stack.resolve(policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy));
  };

  it("names the Cognito pool's issuer and client in config.json, and lets the page reach the issuer and the hosted sign-in's token endpoint", () => {
    const config = deployedConfig(s);
    const pool = s.stack.getLogicalId(s.stack.signIn.userPool!.node.defaultChild as never);
    const client = s.stack.getLogicalId(s.stack.signIn.client!.node.defaultChild as never);
    expect(config.signIn).toEqual({
      issuer: expect.stringContaining(pool),
      clientId: expect.stringContaining(client),
      groupsClaim: 'cognito:groups',
      groupRoles: '',
    });
    const csp = cspOf(s);
    expect(csp).toMatch(/connect-src 'self' https:\/\/[^;]*https:\/\/cognito-idp\./);
    expect(csp).toContain('.auth.');
    expect(csp).toContain('amazoncognito.com');
  });

  it("names an external issuer, its client and its groups mapping in config.json, and the issuer's origin in connect-src", () => {
    const external = synthStack({
      signIn: { issuer: 'https://example.okta.com/oauth2/default', clientId: '0oa-dashboard', groupsClaim: 'groups', groupRoles: 'Tally Admins=admin' },
    });
    expect(deployedConfig(external).signIn).toEqual({
      issuer: 'https://example.okta.com/oauth2/default',
      clientId: '0oa-dashboard',
      groupsClaim: 'groups',
      groupRoles: 'Tally Admins=admin',
    });
    expect(cspOf(external)).toMatch(/connect-src 'self' https:\/\/[^;]* https:\/\/example\.okta\.com(;|")/);
  });

  it("lets the page reach Google's token endpoint, on another origin than its issuer, with no setting", () => {
    const google = synthStack({ signIn: { issuer: 'https://accounts.google.com', clientId: '123-abc.apps.googleusercontent.com', groupsClaim: 'groups' } });
    expect(cspOf(google)).toMatch(/connect-src 'self' https:\/\/[^;]* https:\/\/accounts\.google\.com https:\/\/oauth2\.googleapis\.com(;|")/);
  });

  it('adds the origins given in connectOrigins (-c oidcConnectOrigins) to connect-src, and refuses one that is not an https origin', () => {
    const other = synthStack({
      signIn: { issuer: 'https://sso.example.com/realms/team', clientId: 'tally', connectOrigins: ['https://tokens.example.com', 'https://sso.example.com'] },
    });
    expect(cspOf(other)).toMatch(/connect-src 'self' https:\/\/[^;]* https:\/\/sso\.example\.com https:\/\/tokens\.example\.com(;|")/);
    for (const bad of ['https://tokens.example.com/token', 'http://tokens.example.com', 'tokens.example.com']) {
      expect(() => synthStack({ signIn: { issuer: 'https://sso.example.com', clientId: 'tally', connectOrigins: [bad] } })).toThrow(
        `signIn.connectOrigins (-c oidcConnectOrigins) must be https:// origins, comma-separated, with no path or trailing slash (e.g. https://oauth2.googleapis.com): got "${bad}"`,
      );
    }
  });
});

describe('dashboard deployment', () => {
  const deployments = () => ofType(json, 'Custom::CDKBucketDeployment').map(([, d]) => d.Properties);

  it('writes config.json with the API stage URL at deploy time, next to index.html, never cached', () => {
    const entryId = idOf(s.stack.dashboard!.node.findChild('DeployEntry').node.findChild('CustomResource'));
    const entry = json.Resources[entryId].Properties;
    expect(entry.SystemMetadata['cache-control']).toBe(ENTRY_CACHE_CONTROL);
    expect(entry.Exclude).toEqual(['assets/*', 'sdk/*']);
    // The SDK's manifest names the current version: it goes with the entry, never cached.
    expect(entry.Include).toEqual([SDK_MANIFEST_FILE]);
    // Source.jsonData's asset: config.json with markers the deployment replaces by the resolved values.
    const staged = s.stack
      .dashboard!.node.findChild('DeployEntry')
      .node.children.filter((c): c is Asset => c instanceof Asset)
      .map((a) => (a.node.findChild('Stage') as unknown as { absoluteStagedPath: string }).absoluteStagedPath)
      .filter((dir) => existsSync(join(dir, DASHBOARD_CONFIG_FILE)));
    expect(staged).toHaveLength(1);
    const config = JSON.parse(readFileSync(join(staged[0]!, DASHBOARD_CONFIG_FILE), 'utf8')) as DashboardConfig;
    const markers = (entry.SourceMarkers as Array<Record<string, unknown>>).find((m) => Object.keys(m).length > 0)!;
    const resolved = config.apiUrl!.replace(/<<marker:0xbaba:\d+>>/g, (m) => `{${JSON.stringify(markers[m])}}`);
    const stageId = s.stack.getLogicalId(s.stack.api.api.deploymentStage.node.defaultChild as never);
    expect(resolved).toBe(
      `https://{{"Ref":"${idOf(s.stack.api.api)}"}}.execute-api.{{"Ref":"AWS::Region"}}.{{"Ref":"AWS::URLSuffix"}}/{{"Ref":"${stageId}"}}/`,
    );
    // Without CloudFront in front of the API, apps send to the same stage URL.
    expect(config.baseUrl!.replace(/<<marker:0xbaba:\d+>>/g, (m) => `{${JSON.stringify(markers[m])}}`)).toBe(resolved);
  });

  it("gives the install snippet CloudFront's URL when CloudFront fronts the API (the ApiUrl output), so apps get geolocation", () => {
    const edged = synthStack({ cloudFront: true });
    const entryId = edged.stack.getLogicalId(edged.stack.dashboard!.node.findChild('DeployEntry').node.findChild('CustomResource').node.defaultChild as never);
    const entry = edged.template.toJSON().Resources[entryId].Properties;
    const staged = edged.stack
      .dashboard!.node.findChild('DeployEntry')
      .node.children.filter((c): c is Asset => c instanceof Asset)
      .map((a) => (a.node.findChild('Stage') as unknown as { absoluteStagedPath: string }).absoluteStagedPath)
      .filter((dir) => existsSync(join(dir, DASHBOARD_CONFIG_FILE)));
    const config = JSON.parse(readFileSync(join(staged[0]!, DASHBOARD_CONFIG_FILE), 'utf8')) as DashboardConfig;
    const markers = (entry.SourceMarkers as Array<Record<string, unknown>>).find((m) => Object.keys(m).length > 0)!;
    const resolved = config.baseUrl!.replace(/<<marker:0xbaba:\d+>>/g, (m) => `{${JSON.stringify(markers[m])}}`);
    const edgeId = edged.stack.getLogicalId(edged.stack.edge!.distribution.node.defaultChild as never);
    expect(resolved).toBe(`https://{{"Fn::GetAtt":["${edgeId}","DomainName"]}}/`);
    expect(edged.template.toJSON().Outputs.ApiUrl.Value).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [edgeId, 'DomainName'] }, '/']] });
  });

  it('deploys the hashed assets with a year-long immutable cache, before the entry, and keeps old ones', () => {
    const assets = deployments().find((d) => JSON.stringify(d.Include ?? []) === JSON.stringify(['assets/*']));
    expect(assets).toBeDefined();
    expect(assets.SystemMetadata['cache-control']).toBe(ASSETS_CACHE_CONTROL);
    expect(assets.Prune).toBe(false);
    const entryId = idOf(s.stack.dashboard!.node.findChild('DeployEntry').node.findChild('CustomResource'));
    const [assetsId] = ofType(json, 'Custom::CDKBucketDeployment').find(([, d]) => d.Properties === assets)!;
    expect(JSON.stringify(json.Resources[entryId].DependsOn ?? [])).toContain(assetsId);
  });

  it("deploys the SDK's versioned files with a day's cache, keeps older versions, and before the entry that names them", () => {
    const sdk = s.stack.dashboard!.node.findChild('DeploySdk').node.findChild('CustomResource');
    const props = json.Resources[idOf(sdk)].Properties;
    expect(props.SystemMetadata['cache-control']).toBe(SDK_CACHE_CONTROL);
    expect(props.Prune).toBe(false);
    expect(props.Exclude).toEqual([SDK_MANIFEST_FILE]);
    const entryId = idOf(s.stack.dashboard!.node.findChild('DeployEntry').node.findChild('CustomResource'));
    expect(JSON.stringify(json.Resources[entryId].DependsOn ?? [])).toContain(idOf(sdk));
  });

  it('prints DashboardUrl: https://<distribution domain>/', () => {
    expect(json.Outputs.DashboardUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [idOf(s.stack.dashboard!.distribution), 'DomainName'] }, '/']],
    });
  });
});

/**
 * The log group a Lambda function writes to, named after the function (/aws/lambda/<function name>),
 * when the template creates it: CloudFormation creates it after the function (it needs the name), so
 * a custom resource that invokes the function in between makes Lambda create it first, and its create
 * then fails with "already exists" (aws/aws-cdk issues 667 and 34612).
 */
function logGroupsCreatedAfterTheirFunction(resources: Record<string, any>): string[] {
  return Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::Logs::LogGroup')
    .flatMap(([id, r]) => {
      const parts = r.Properties?.LogGroupName?.['Fn::Join']?.[1];
      const fn = Array.isArray(parts) && parts[0] === '/aws/lambda/' ? parts[1]?.Ref : undefined;
      return fn && resources[fn]?.Type === 'AWS::Lambda::Function' ? [`${id} (/aws/lambda/ of ${fn})`] : [];
    });
}

describe('the deployments’ log group', () => {
  it('every deployment’s function writes to a log group of its own, with a retention, that exists before the function', () => {
    const deployments = ofType(json, 'Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(3);
    const functions = ofType(json, 'AWS::Lambda::Function');
    for (const [id, d] of deployments) {
      const fnId = d.Properties.ServiceToken['Fn::GetAtt'][0];
      const group = json.Resources[fnId].Properties.LoggingConfig?.LogGroup?.Ref;
      expect(group, `${id}: the function ${fnId} names no log group (Lambda would create /aws/lambda/<name> on its first run)`).toBeDefined();
      expect(json.Resources[group].Type).toBe('AWS::Logs::LogGroup');
      // A generated name: Lambda never creates it by itself, and a retried deploy makes a new one.
      expect(json.Resources[group].Properties.LogGroupName, group).toBeUndefined();
      expect(json.Resources[group].Properties.RetentionInDays, group).toBe(30);
      const writers = functions.filter(([, f]) => f.Properties.LoggingConfig?.LogGroup?.Ref === group).map(([fid]) => fid);
      expect(writers, `${group} is written by other functions too`).toEqual([fnId]);
    }
  });

  it('no log group of the template is created after the function it is named after (the check finds the race)', () => {
    expect(logGroupsCreatedAfterTheirFunction(json.Resources)).toEqual([]);
    // CDK's own log group of the deployment function, as a deployment without logGroup gets it.
    const fnId = ofType(json, 'Custom::CDKBucketDeployment')[0]![1].Properties.ServiceToken['Fn::GetAtt'][0];
    const racing = {
      ...json.Resources,
      RacingLogGroup: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: { 'Fn::Join': ['', ['/aws/lambda/', { Ref: fnId }]] } } },
    };
    expect(logGroupsCreatedAfterTheirFunction(racing)).toEqual([`RacingLogGroup (/aws/lambda/ of ${fnId})`]);
  });
});

describe('admin CORS for the dashboard origin', () => {
  const dashboardOrigin = () => ({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [idOf(s.stack.dashboard!.distribution), 'DomainName'] }]] });

  it('gives every admin function DASHBOARD_ORIGIN, and no other function', () => {
    for (const route of ROUTES) {
      const env = json.Resources[idOf(s.stack.functions[route.name].fn)].Properties.Environment.Variables;
      if (route.auth === 'admin') expect(env.DASHBOARD_ORIGIN, route.name).toEqual(dashboardOrigin());
      else expect(env.DASHBOARD_ORIGIN, route.name).toBeUndefined();
    }
  });

  it('answers OPTIONS on every admin path with a mock allowing only the dashboard origin', () => {
    const resources = s.template.findResources('AWS::ApiGateway::Resource');
    const pathOf = (id: string): string => {
      const p = resources[id]!.Properties;
      return `${p.ParentId.Ref ? pathOf(p.ParentId.Ref) : ''}/${p.PathPart}`;
    };
    const options = ofType(json, 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod === 'OPTIONS');
    const adminPaths = new Set<string>(ROUTES.filter((r) => r.auth === 'admin').map((r) => r.path));
    const adminOptions = options.filter(([, m]) => adminPaths.has(pathOf(m.Properties.ResourceId.Ref)));
    expect(new Set(adminOptions.map(([, m]) => pathOf(m.Properties.ResourceId.Ref)))).toEqual(adminPaths);

    // The template, with the distribution's domain in place of its token.
    const expected = s.stack.resolve(adminPreflightResponseTemplate(s.stack.dashboard!.origin));
    for (const [, m] of adminOptions) {
      expect(m.Properties).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK', ContentHandling: 'CONVERT_TO_TEXT' } });
      const response = m.Properties.Integration.IntegrationResponses[0];
      const params = response.ResponseParameters as Record<string, string>;
      // No static allow-origin: only the template sets it, and only for the dashboard.
      expect(params['method.response.header.Access-Control-Allow-Origin']).toBeUndefined();
      for (const [name, value] of Object.entries(ADMIN_PREFLIGHT_STATIC_HEADERS)) expect(params[`method.response.header.${name}`], name).toBe(`'${value}'`);
      const template = response.ResponseTemplates['application/json'];
      expect(template).toEqual(expected);
      const text = JSON.stringify(template);
      expect(text).toContain(`#if(\\"$!origin\\" == \\"https://`);
      expect(text).toContain(idOf(s.stack.dashboard!.distribution));
      expect(text).toContain('#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)');
      expect(Object.keys(m.Properties.MethodResponses[0].ResponseParameters)).toContain('method.response.header.Access-Control-Allow-Origin');
    }
  });
});

describe('dependencies', () => {
  it('the template has no cycle (admin functions -> distribution -> CSP -> RestApi; config.json -> stage)', () => {
    const resources = json.Resources;
    const refs = (value: unknown, out: Set<string>): Set<string> => {
      if (Array.isArray(value)) value.forEach((v) => refs(v, out));
      else if (value && typeof value === 'object') {
        const v = value as Record<string, unknown>;
        if (typeof v.Ref === 'string' && v.Ref in resources) out.add(v.Ref);
        const att = v['Fn::GetAtt'] as string[] | undefined;
        if (Array.isArray(att) && att[0]! in resources) out.add(att[0]!);
        Object.values(v).forEach((x) => refs(x, out));
      }
      return out;
    };
    const edges = new Map(
      Object.entries(resources).map(([id, r]) => [id, new Set([...refs(r.Properties, new Set()), ...([] as string[]).concat(r.DependsOn ?? [])])]),
    );
    const state = new Map<string, 'visiting' | 'done'>();
    const cycleFrom = (id: string, path: string[]): string[] | undefined => {
      if (state.get(id) === 'done') return undefined;
      if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
      state.set(id, 'visiting');
      for (const next of edges.get(id) ?? []) {
        const cycle = cycleFrom(next, [...path, id]);
        if (cycle) return cycle;
      }
      state.set(id, 'done');
      return undefined;
    };
    for (const id of edges.keys()) expect(cycleFrom(id, [])).toBeUndefined();
  });
});

describe('without the dashboard (-c dashboard=false)', () => {
  let off: { Resources: Record<string, any>; Outputs: Record<string, any> };
  let offStack: TallyStack;
  beforeAll(() => {
    offStack = new TallyStack(testApp(), 'Tally', { dashboard: false });
    off = mergedTemplate(offStack).toJSON() as typeof off;
  });

  it('deploys the API with no CloudFront distribution, no dashboard bucket and no DashboardUrl output', () => {
    expect(offStack.dashboard).toBeUndefined();
    expect(ofType(off, 'AWS::CloudFront::Distribution')).toEqual([]);
    expect(ofType(off, 'Custom::CDKBucketDeployment')).toEqual([]);
    expect(Object.keys(off.Outputs)).not.toContain('DashboardUrl');
    expect(Object.keys(off.Outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'ExecuteApiUrl', 'AdminTokenSecretArn']));
    // Every route is still there.
    expect(ofType(off, 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod !== 'OPTIONS')).toHaveLength(ROUTES.length);
  });

  it('answers no CORS on admin routes: no DASHBOARD_ORIGIN, no admin OPTIONS', () => {
    for (const route of ROUTES) {
      const env = off.Resources[offStack.getLogicalId(offStack.functions[route.name].fn.node.defaultChild as never)].Properties.Environment.Variables;
      expect(env.DASHBOARD_ORIGIN, route.name).toBeUndefined();
    }
    const options = ofType(off, 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod === 'OPTIONS');
    const publicPaths = new Set(ROUTES.filter((r) => r.auth === 'api-key').map((r) => r.path));
    expect(options).toHaveLength(publicPaths.size);
  });

  it('is the default to have it: the default stack has one distribution and the output', () => {
    expect(ofType(json, 'AWS::CloudFront::Distribution')).toHaveLength(1);
    expect(Object.keys(json.Outputs)).toContain('DashboardUrl');
  });
});

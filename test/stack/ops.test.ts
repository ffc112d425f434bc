/** Function defaults, the results schedule, alarms, optional SNS and CloudFront, outputs. */
import { join } from 'node:path';
import { Duration, type NestedStack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { beforeAll, describe, expect, it } from 'vitest';
import { AWS_CALL_LIMITS } from '../../lambdas/contract/aws-call-limits';
import { ORIGIN_VERIFY_HEADER } from '../../lambdas/contract/gateway';
import {
  GUARDRAIL_BREACHED,
  INSIGHT_QUERY_FAILED,
  AUDIT_RECORD_FAILED,
  METRICS_NAMESPACE,
  RESULTS_BASE_WRITE_FAILED,
  RESULTS_STATE_WRITE_FAILED,
} from '../../lambdas/contract/metrics';
import { JOBS, ROUTES } from '../../lambdas/routes';
import { TABLES } from '../../lambdas/store/schema';
import { RAW_STREAMS } from '../../lib/raw-streams';
import { synthStack, type Synth } from './synth';

let s: Synth;
beforeAll(() => {
  s = synthStack();
});

const id = (c: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(c.node.defaultChild as never);
/** The same items in one order: alarms about a route function are in its nested stack, after the parent's in the merged template. */
const inOrder = <T>(items: T[]): T[] => [...items].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
const functionCount = ROUTES.length + JOBS.length + 1;
/** CDK's own function copying the dashboard into its bucket at deploy time (lib/dashboard.ts): not a Tally function. */
/** Functions CDK writes for the dashboard: the BucketDeployment copier and the bucket's auto-delete handler. */
const isCdkDeployHandler = (logicalId: string) => logicalId.startsWith('CustomCDKBucketDeployment') || logicalId.startsWith('CustomS3AutoDeleteObjects');

describe('functions', () => {
  it('one per route, per job, plus the authorizer: Node.js 22 on arm64, JSON logs, source maps', () => {
    const fns = Object.entries(s.template.findResources('AWS::Lambda::Function'))
      .filter(([logicalId]) => !isCdkDeployHandler(logicalId))
      .map(([, fn]) => fn);
    expect(fns).toHaveLength(functionCount);
    for (const fn of fns) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'WARN', LogGroup: { Ref: expect.any(String) } },
      });
      expect(fn.Properties.Environment.Variables).toMatchObject({ NODE_OPTIONS: '--enable-source-maps', TALLY_LOG_LEVEL: 'info' });
    }
  });

  it('gives each function its own log group with retention, and no managed policy', () => {
    const groups = Object.values(s.template.findResources('AWS::Logs::LogGroup')).filter((g) => g.Properties.RetentionInDays === 30);
    expect(groups.length).toBeGreaterThanOrEqual(functionCount);
    for (const [logicalId, role] of Object.entries(s.template.findResources('AWS::IAM::Role'))) {
      if (isCdkDeployHandler(logicalId)) continue;
      if (role.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service === 'lambda.amazonaws.com') {
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    }
  });

  it('gives the Athena route time under the 29 s API Gateway limit and waits 3 s less for queries', () => {
    const refresh = s.template.toJSON().Resources[id(s.stack.functions['admin-results-refresh'].fn)].Properties;
    expect(refresh.Timeout).toBe(28);
    expect(refresh.Environment.Variables.ATHENA_MAX_WAIT_SECONDS).toBe('25');
    expect(s.template.toJSON().Resources[id(s.stack.functions['ingest-v1'].fn)].Properties.Timeout).toBe(10);
  });

  it('refuses a function timeout shorter than the longest AWS call deadline, and gives every function at least that', () => {
    const longestDeadlineMs = Math.max(...Object.values(AWS_CALL_LIMITS).map((l) => l.deadlineMs));
    expect(() => synthStack({ functionTimeout: Duration.seconds(Math.ceil(longestDeadlineMs / 1000)) })).toThrow(/functionTimeout must be at least 9 s/);
    for (const fn of Object.values(s.template.findResources('AWS::Lambda::Function'))) {
      if (fn.Properties.Environment?.Variables?.TALLY_LOG_LEVEL) expect(fn.Properties.Timeout * 1000).toBeGreaterThan(longestDeadlineMs);
    }
  });

  it('refuses Athena result files that would expire before the insight queries naming them (7 days), and takes 8 days', () => {
    expect(() => synthStack({ athenaResultsExpiration: Duration.days(7) })).toThrow(/athenaResultsExpiration must be at least 8 days \(got 7 days\)/);
    expect(() => synthStack({ athenaResultsExpiration: Duration.days(8) })).not.toThrow();
  });

  it('runs the results job every 15 minutes without retries, neither by the rule nor by Lambda', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [id(s.stack.jobs['results-job'].fn), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    // Nor by Lambda's own retries of asynchronous invocations (two by default); a failure alarms instead.
    const job = id(s.stack.jobs['results-job'].fn);
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: job }, MaximumRetryAttempts: 0 });
    expect(
      Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).some((a) =>
        (a.Properties.Metrics ?? []).some(
          (m: any) => m.MetricStat?.Metric?.MetricName === 'Errors' && m.MetricStat.Metric.Dimensions?.some((d: any) => d.Value?.Ref === job),
        ),
      ),
    ).toBe(true);
    const custom = synthStack({ resultsSchedule: Schedule.rate(Duration.hours(1)), logLevel: 'debug' });
    custom.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
    custom.template.hasResourceProperties('AWS::Lambda::Function', { LoggingConfig: Match.objectLike({ ApplicationLogLevel: 'DEBUG' }) });
  });

  it('runs the compaction job every 15 minutes, one run at a time (reserved concurrency 1), retried only by the next run', () => {
    const job = id(s.stack.jobs['compact-landing'].fn);
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [job, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: job }, MaximumRetryAttempts: 0 });
    const fn = s.template.toJSON().Resources[job].Properties;
    expect(fn.ReservedConcurrentExecutions).toBe(1);
    expect(fn.Timeout).toBe(900);
    expect(fn.Environment.Variables).toMatchObject({
      // Firehose's largest buffering interval plus its 24 hours of S3 retries; the longest Athena query (240 min); 3 days.
      COMPACTION_CLOSE_AFTER_SECONDS: '87300',
      COMPACTION_GRACE_SECONDS: '14400',
      LANDING_RETENTION_SECONDS: '259200',
    });
    const custom = synthStack({ compactionSchedule: Schedule.rate(Duration.hours(1)) });
    custom.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  });
});

describe('alarms', () => {
  const alarms = () => Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);

  it('watches the API 5xx rate', () => {
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Threshold: 0.01,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('watches errors and throttles of every function, in one alarm each, a period with only throttles included', () => {
    const lambdaMetrics = (a: any) => (a.Metrics ?? []).filter((m: any) => m.MetricStat?.Metric?.Namespace === 'AWS/Lambda');
    const watched = alarms().filter((a) => lambdaMetrics(a).length > 0);
    expect(watched).toHaveLength(functionCount);
    for (const a of watched) {
      const byId = Object.fromEntries(lambdaMetrics(a).map((m: any) => [m.Id, m.MetricStat]));
      expect(
        Object.values(byId)
          .map((m: any) => m.Metric.MetricName)
          .sort(),
      ).toEqual(['Errors', 'Throttles']);
      expect(new Set(Object.values(byId).map((m: any) => JSON.stringify(m.Metric.Dimensions))).size).toBe(1);
      const expression = a.Metrics.find((m: any) => m.Expression);
      expect(expression.Expression).toBe('FILL(e, 0) + FILL(t, 0)');
      expect([byId.e.Metric.MetricName, byId.t.Metric.MetricName]).toEqual(['Errors', 'Throttles']);
      expect(a).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  it('watches Firehose delivery of every stream', () => {
    for (const stream of Object.keys(RAW_STREAMS)) {
      const streamId = id(s.stack.raw.streams[stream as keyof typeof RAW_STREAMS]);
      const found = alarms().filter((a) => a.Namespace === 'AWS/Firehose' && JSON.stringify(a.Dimensions).includes(streamId));
      expect(found.map((a) => a.MetricName).sort(), stream).toEqual(
        // No PartitionCountExceeded: the streams land by arrival only, no dynamic partitioning (docs/decisions/columnar-events.md).
        ['DeliveryToS3.DataFreshness', 'DeliveryToS3.Success', 'ThrottledRecords'].sort(),
      );
      expect(found.find((a) => a.MetricName === 'DeliveryToS3.Success')).toMatchObject({ Threshold: 1, ComparisonOperator: 'LessThanThreshold' });
    }
  });

  it.each([RESULTS_STATE_WRITE_FAILED, RESULTS_BASE_WRITE_FAILED])(
    'watches %s (failed writes of the results state or base), on the metric the results query emits, for each function that writes it',
    (metric) => {
      const found = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE && a.MetricName === metric);
      const writers = [...ROUTES, ...JOBS].filter((f) => 'resultsQuery' in f.uses).map((f) => f.name);
      expect(writers.sort()).toEqual(['admin-results-refresh', 'results-job']);
      expect(inOrder(found.map((a) => a.Dimensions))).toEqual(
        inOrder(
          writers.map((name) => [
            {
              Name: 'FunctionName',
              Value: { Ref: id(name === 'results-job' ? s.stack.jobs['results-job'].fn : s.stack.functions['admin-results-refresh'].fn) },
            },
          ]),
        ),
      );
      for (const alarm of found)
        expect(alarm).toMatchObject({ Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    },
  );

  it.each([
    ['CompactionFailed', 'a failed compaction run'],
    ['CuratedFilesOverGoal', 'a compaction run that wrote more curated files than their goal'],
    ['DeletionFailed', "a failed step of a person's deletion"],
  ])('alarms on %s, the metric %s emits, for the compaction function', (metric) => {
    const found = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE && a.MetricName === metric);
    expect(found.map((a) => a.Dimensions)).toEqual([[{ Name: 'FunctionName', Value: { Ref: id(s.stack.jobs['compact-landing'].fn) } }]]);
    expect(found[0]).toMatchObject({
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on InsightQueryFailed, the metric the insights routes emit for a failed Athena query, for each insights function', () => {
    const found = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE && a.MetricName === INSIGHT_QUERY_FAILED);
    const functions = ROUTES.filter((f) => 'insightEngine' in f.uses).map((f) => f.name);
    expect(functions).toEqual(['admin-insights-trends', 'admin-insights-funnels', 'admin-insights-retention', 'admin-insights-query-get']);
    expect(found.map((a) => a.Dimensions)).toEqual(functions.map((name) => [{ Name: 'FunctionName', Value: { Ref: id(s.stack.functions[name].fn) } }]));
    for (const alarm of found)
      expect(alarm).toMatchObject({
        Statistic: 'Sum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
  });

  it('alarms on AuditRecordFailed, the metric any admin write emits when its audit entry cannot be written: one alarm, no dimension', () => {
    const found = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE && a.MetricName === AUDIT_RECORD_FAILED);
    expect(ROUTES.filter((r) => r.auth === 'admin' && r.method !== 'GET').length).toBeGreaterThan(10);
    expect(found).toHaveLength(1);
    expect(found[0]!.Dimensions).toBeUndefined();
    expect(found[0]).toMatchObject({
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on a guardrail breached, on the metric the results job and the refresh route emit, for an hour after each', () => {
    const found = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE && a.MetricName === GUARDRAIL_BREACHED);
    expect(inOrder(found.map((a) => a.Dimensions))).toEqual(
      inOrder([
        [{ Name: 'FunctionName', Value: { Ref: id(s.stack.functions['admin-results-refresh'].fn) } }],
        [{ Name: 'FunctionName', Value: { Ref: id(s.stack.jobs['results-job'].fn) } }],
      ]),
    );
    for (const alarm of found) {
      expect(alarm).toMatchObject({
        Statistic: 'Sum',
        Period: 3600,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.AlarmDescription).toMatch(/guardrail/);
    }
  });

  it('watches DynamoDB throttling of every table', () => {
    const found = alarms().filter((a) => a.Metrics && JSON.stringify(a.Metrics).includes('ThrottleEvents'));
    expect(found).toHaveLength(Object.keys(TABLES).length);
  });

  it('notifies nobody by default, and an SNS topic (TLS only) with alarmEmail', () => {
    expect(Object.keys(s.template.findResources('AWS::SNS::Topic'))).toHaveLength(0);
    const notified = synthStack({ alarmEmail: 'ops@example.com' });
    notified.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    notified.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    for (const alarm of Object.values(notified.template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toHaveLength(1);
    }
  });
});

describe('CloudFront (optional)', () => {
  it("is off by default (the only distribution is the dashboard's)", () => {
    expect(Object.keys(s.template.findResources('AWS::CloudFront::Distribution'))).toEqual([id(s.stack.dashboard!.distribution)]);
    expect(s.template.toJSON().Resources[id(s.stack.authorizer.fn)].Properties.Environment.Variables).not.toHaveProperty('ORIGIN_SECRET_ARN');
  });

  it('sends the origin secret header, forwards everything but Host, caches nothing; the authorizer gets the secret', () => {
    const cf = synthStack({ cloudFront: true });
    const dist = cf.template.toJSON().Resources[cf.stack.getLogicalId(cf.stack.edge!.distribution.node.defaultChild as never)].Properties.DistributionConfig;
    const origin = dist.Origins[0];
    expect(origin.OriginCustomHeaders).toHaveLength(1);
    expect(origin.OriginCustomHeaders[0].HeaderName).toBe(ORIGIN_VERIFY_HEADER);
    // A dynamic reference to the secret, resolved by CloudFormation at deploy time.
    expect(JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue)).toContain('{{resolve:secretsmanager:');
    // The stage path: /prod/v1/events on the origin for /v1/events at CloudFront.
    expect(JSON.stringify(origin.OriginPath)).toContain(cf.stack.getLogicalId(cf.stack.api.api.deploymentStage.node.defaultChild as never));
    expect(dist.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // AllViewerExceptHostHeader
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
    });
    const env = cf.template.toJSON().Resources[cf.stack.getLogicalId(cf.stack.authorizer.fn.node.defaultChild as never)].Properties.Environment.Variables;
    expect(env.ORIGIN_SECRET_ARN).toEqual({ Ref: cf.stack.getLogicalId(cf.stack.edge!.originSecret.node.defaultChild as never) });
    cf.template.hasOutput('ApiUrl', { Value: { 'Fn::Join': ['', ['https://', Match.anyValue(), '/']] } });
  });
});

describe('outputs', () => {
  it('names the API URL, the admin token secret, the raw bucket, the Glue database and the workgroup', () => {
    const outputs = Object.keys(s.template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining(['ApiUrl', 'DashboardUrl', 'ExecuteApiUrl', 'AdminTokenSecretArn', 'RawBucketName', 'GlueDatabase', 'AthenaWorkGroup']),
    );
  });

  it('names what `npm run redrive` needs besides the raw bucket: the two Firehose streams, and the queue of errors/ keys', () => {
    s.template.hasOutput('EventsStreamName', { Value: { Ref: id(s.stack.raw.streams.events) } });
    s.template.hasOutput('IdentitiesStreamName', { Value: { Ref: id(s.stack.raw.streams.identities) } });
    s.template.hasOutput('DeliveryErrorsQueueUrl', { Value: { Ref: id(s.stack.raw.deliveryErrorsQueue) } });
  });
});

describe('geolocation database', () => {
  it('ships the MMDB with the ingestion functions only, when the prop names one', () => {
    const db = join(import.meta.dirname, '..', 'fixtures', 'geoip', 'GeoLite2-City-Test.mmdb');
    const withDb = synthStack({ geoipDatabase: db });
    const env = (name: 'ingest-v1' | 'ingest-api' | 'experiments-assign') =>
      withDb.template.toJSON().Resources[id(withDb.stack.functions[name].fn)].Properties.Environment.Variables;
    expect(env('ingest-v1').GEOIP_DB_PATH).toBe('/var/task/geoip-city.mmdb');
    expect(env('ingest-api').GEOIP_DB_PATH).toBe('/var/task/geoip-city.mmdb');
    expect(env('experiments-assign').GEOIP_DB_PATH).toBeUndefined();
    const without = s.template.toJSON().Resources[id(s.stack.functions['ingest-v1'].fn)].Properties.Environment.Variables;
    expect(without.GEOIP_DB_PATH).toBeUndefined();
  });

  it('refuses a database path that does not exist, naming it', () => {
    expect(() => synthStack({ geoipDatabase: '/nowhere/GeoLite2-City.mmdb' })).toThrow(/\/nowhere\/GeoLite2-City.mmdb does not exist/);
  });
});

describe('the smoke test finds each route’s log group by logical ID', () => {
  it('every route has exactly one log group whose logical ID starts with what bin/smoke/diagnosis.ts asks for, in the stack it asks', async () => {
    const { logGroupHint } = await import('../../bin/smoke/diagnosis');
    const { ROUTES: routes } = await import('../../lambdas/routes');
    const { stack, templates } = synthStack();
    const parent = templates['Tally']!;
    const nestedByLogicalId = Object.fromEntries(
      Object.entries(templates)
        .filter(([path]) => path !== 'Tally')
        .map(([path, t]) => [stack.resolve((stack.node.findChild(path.split('/')[1]!) as NestedStack).nestedStackResource!.logicalId), t]),
    );
    for (const route of routes) {
      const hint = logGroupHint(route.name, 'Tally');
      // The outer command runs on the stack: its prefix must name one nested stack there.
      const [stackPrefix, logPrefix] = [...hint.matchAll(/starts_with\(LogicalResourceId, '([^']+)'\)/g)].map((m) => m[1]!);
      expect(hint, route.name).toMatch(/--stack-name Tally --query/);
      const stacks = Object.keys(parent.findResources('AWS::CloudFormation::Stack')).filter((id) => id.startsWith(stackPrefix!));
      expect(stacks, route.name).toHaveLength(1);
      const ids = Object.keys(nestedByLogicalId[stacks[0]!]!.findResources('AWS::Logs::LogGroup'));
      expect(
        ids.filter((id) => id.startsWith(logPrefix!)),
        route.name,
      ).toHaveLength(1);
    }
  });
});

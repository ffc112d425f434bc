/**
 * Records Firehose cannot deliver (errors/ of the raw bucket) are never silently lost: the bucket sends
 * its object events to EventBridge, a rule matches the objects created under errors/, an alarm watches
 * the rule, and errors/ never expires (redriven/ does, once `npm run redrive` has re-sent it).
 *
 * The rule's event pattern is taken from the synthesized template and executed by a matcher of its two
 * operators (test/helpers/event-pattern.ts) against the S3 "Object Created" event of the Amazon S3 user
 * guide ("EventBridge event message structure"), with the keys Firehose writes.
 */
import { Duration } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchesEventPattern } from '../helpers/event-pattern';
import { synthStack, type Synth } from './synth';

let s: Synth;
beforeAll(() => {
  s = synthStack();
});

const id = (c: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(c.node.defaultChild as never);
const resources = () => s.template.toJSON().Resources as Record<string, { Type: string; Properties: any }>;

/** The S3 user guide's example "Object Created" event, in the bucket and with the key given. */
const objectCreated = (bucket: string, key: string, overrides: Record<string, unknown> = {}) => ({
  version: '0',
  id: '17793124-05d4-b198-2fde-7ededc63b103',
  'detail-type': 'Object Created',
  source: 'aws.s3',
  account: '111122223333',
  time: '2021-11-12T00:00:00Z',
  region: 'ca-central-1',
  resources: [`arn:aws:s3:::${bucket}`],
  detail: {
    version: '0',
    bucket: { name: bucket },
    object: { key, size: 5, etag: 'b1946ac92492d2347c6235b4d2611184', 'version-id': 'IYV3p45BT0ac8hjHg1houSdS1a.Mro8e', sequencer: '617f08299329d189' },
    'request-id': 'N4N7GDK58NMKJ12R',
    requester: '123456789012',
    'source-ip-address': '1.2.3.4',
    reason: 'PutObject',
  },
  ...overrides,
});

/** The rule's pattern as deployed: the bucket's Ref replaced by the bucket name CloudFormation gives it. */
function deployedPattern(bucketName: string) {
  const rule = resources()[id(s.stack.raw.deliveryErrorsRule)]!;
  const bucketRef = JSON.stringify({ Ref: id(s.stack.raw.bucket) });
  return JSON.parse(JSON.stringify(rule.Properties.EventPattern).split(bucketRef).join(JSON.stringify(bucketName)));
}

describe('records Firehose writes under errors/', () => {
  it('are announced: the raw bucket sends its object events to EventBridge', () => {
    expect(resources()[id(s.stack.raw.bucket)]!.Properties.NotificationConfiguration).toEqual({ EventBridgeConfiguration: { EventBridgeEnabled: true } });
  });

  it('are matched by the rule, executed on the S3 user guide’s Object Created event: errors/ keys of this bucket only', () => {
    const bucket = 'amzn-s3-demo-bucket1';
    const pattern = deployedPattern(bucket);
    const matches = (event: Record<string, unknown>) => matchesEventPattern(pattern, event);
    // The keys Firehose writes with the template's ErrorOutputPrefix, for each stream and error type.
    for (const key of [
      'errors/events/partitioning-failed/dt=2026-11-28/Tally-Raw-events-1-2026-11-28-09-00-00-a1b2c3d4.json.gz',
      'errors/identities/processing-failed/dt=2026-11-28/Tally-Raw-identities-1-2026-11-28-09-00-00-a1b2c3d4.json.gz',
    ]) {
      expect(matches(objectCreated(bucket, key)), key).toBe(true);
      expect(matches(objectCreated(bucket, key, { detail: { ...objectCreated(bucket, key).detail, reason: 'CompleteMultipartUpload' } })), key).toBe(true);
    }
    for (const key of [
      'events/project_id=p/dt=2026-11-28/received=2026-11-28-09/Tally-Raw-events-1-2026-11-28-09-00-00-a1b2c3d4.json.gz',
      'redriven/errors/events/partitioning-failed/dt=2026-11-28/x.json.gz',
      'errors', // not under the folder
      'example-key',
    ]) {
      expect(matches(objectCreated(bucket, key)), key).toBe(false);
    }
    expect(matches(objectCreated('another-bucket', 'errors/events/x'))).toBe(false);
    expect(matches(objectCreated(bucket, 'errors/events/x', { 'detail-type': 'Object Deleted' }))).toBe(false);
    expect(matches(objectCreated(bucket, 'errors/events/x', { source: 'aws.s3-other' }))).toBe(false);
  });

  it('raise an alarm within 15 minutes: any trigger of the rule in a 5-minute period, notified like every alarm', () => {
    const alarms = Object.values(resources()).filter((r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties.Namespace === 'AWS/Events');
    expect(alarms.map((a) => a.Properties)).toEqual([
      expect.objectContaining({
        MetricName: 'TriggeredRules',
        Dimensions: [{ Name: 'RuleName', Value: { Ref: id(s.stack.raw.deliveryErrorsRule) } }],
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmDescription: expect.stringContaining('npm run redrive'),
      }),
    ]);
    const notified = synthStack({ alarmEmail: 'ops@example.com' });
    const alarm = Object.values(notified.template.findResources('AWS::CloudWatch::Alarm')).find((a) => a.Properties.MetricName === 'TriggeredRules');
    expect(alarm!.Properties.AlarmActions).toHaveLength(1);
  });

  it('keep each matched event 14 days in a queue (the keys to inspect), its only sender the rule', () => {
    const rule = resources()[id(s.stack.raw.deliveryErrorsRule)]!.Properties;
    const queueId = id(s.stack.raw.deliveryErrorsQueue);
    expect(rule.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } })]);
    expect(resources()[queueId]!.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
  });

  it('never expire while unread: no lifecycle rule deletes errors/; what the redrive moved to redriven/ expires after 90 days', () => {
    const rules = resources()[id(s.stack.raw.bucket)]!.Properties.LifecycleConfiguration.Rules as Array<{ Prefix?: string; ExpirationInDays?: number }>;
    const expiring = rules.filter((r) => r.ExpirationInDays !== undefined);
    expect(expiring.filter((r) => (r.Prefix ?? '') === '' || r.Prefix!.startsWith('errors'))).toEqual([]);
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'redriven/', ExpirationInDays: 90 }));
    // Also with raw expiration on: it expires the landing and curated prefixes of both streams, never errors/.
    const expiringRaw = synthStack({ rawExpiration: Duration.days(365) });
    const rawBucket = expiringRaw.template.toJSON().Resources[expiringRaw.stack.getLogicalId(expiringRaw.stack.raw.bucket.node.defaultChild as never)];
    const rawRules = (rawBucket.Properties.LifecycleConfiguration.Rules as Array<{ Prefix?: string; ExpirationInDays?: number }>)
      .filter((r) => r.ExpirationInDays !== undefined)
      .map((r) => r.Prefix);
    expect(rawRules).toEqual(expect.arrayContaining(['landing/events/', 'landing/identities/', 'curated/events/', 'curated/identities/']));
    expect(rawRules.filter((p) => p === undefined || p === '' || p.startsWith('errors'))).toEqual([]);
  });
});

describe('the matcher', () => {
  it('refuses an operator it does not implement, so a rule using one cannot pass unchecked', () => {
    expect(() => matchesEventPattern({ a: [{ suffix: 'x' } as never] }, { a: 'x' })).toThrow(/not one this matcher implements/);
  });
});

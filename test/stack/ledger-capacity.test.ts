/** The ledgerCapacity option: on-demand by default, provisioned with target-tracking auto scaling when set. */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { LEDGER_CAPACITY_DEFAULTS, LEDGER_TABLE, ledgerCapacityFromContext, resolveLedgerCapacity, type LedgerCapacity } from '../../lib/tables';
import { synthStack, type Synth } from './synth';

const ledgerId = (s: Synth) => s.stack.getLogicalId(s.stack.tables[LEDGER_TABLE].node.defaultChild as never);
const resourceId = (s: Synth, dimension: string) =>
  Object.entries(s.template.findResources('AWS::ApplicationAutoScaling::ScalableTarget')).find(([, r]) => r.Properties.ScalableDimension === dimension);

describe('ledger capacity', () => {
  it('defaults to on-demand for every table, with no scalable targets or policies', () => {
    const s = synthStack();
    for (const table of Object.values(s.template.findResources('AWS::DynamoDB::Table'))) {
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.ProvisionedThroughput).toBeUndefined();
    }
    s.template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    s.template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 0);
  });

  it('with the option, provisions only the ledger and scales writes and reads on utilization', () => {
    const capacity: LedgerCapacity = { minWriteCapacity: 10, maxWriteCapacity: 500, minReadCapacity: 2, maxReadCapacity: 50, targetUtilizationPercent: 60 };
    const s = synthStack({ ledgerCapacity: capacity });
    const ledger = ledgerId(s);
    const tables = s.template.findResources('AWS::DynamoDB::Table');
    for (const [logicalId, table] of Object.entries(tables)) {
      if (logicalId === ledger) {
        expect(table.Properties.BillingMode).toBe('PROVISIONED');
        expect(table.Properties.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 2, WriteCapacityUnits: 10 });
      } else {
        expect(table.Properties.BillingMode, logicalId).toBe('PAY_PER_REQUEST');
      }
    }
    s.template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 2);
    s.template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 2);
    const write = resourceId(s, 'dynamodb:table:WriteCapacityUnits');
    const read = resourceId(s, 'dynamodb:table:ReadCapacityUnits');
    expect(write?.[1].Properties).toMatchObject({
      ServiceNamespace: 'dynamodb',
      MinCapacity: 10,
      MaxCapacity: 500,
      ResourceId: { 'Fn::Join': ['', ['table/', { Ref: ledger }]] },
    });
    expect(read?.[1].Properties).toMatchObject({ ServiceNamespace: 'dynamodb', MinCapacity: 2, MaxCapacity: 50 });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      ScalingTargetId: { Ref: write?.[0] },
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' },
        TargetValue: 60,
      },
    });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      ScalingTargetId: { Ref: read?.[0] },
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBReadCapacityUtilization' },
        TargetValue: 60,
      },
    });
  });

  it('takes the documented defaults from an empty object', () => {
    expect(LEDGER_CAPACITY_DEFAULTS).toEqual({
      minWriteCapacity: 5,
      maxWriteCapacity: 4000,
      minReadCapacity: 1,
      maxReadCapacity: 1000,
      targetUtilizationPercent: 70,
    });
    const s = synthStack({ ledgerCapacity: {} });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ScalableDimension: 'dynamodb:table:WriteCapacityUnits',
      MinCapacity: 5,
      MaxCapacity: 4000,
    });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 70 }),
    });
  });

  const invalid: Array<[LedgerCapacity, RegExp]> = [
    [{ minWriteCapacity: 0 }, /minWriteCapacity must be a positive integer \(got 0\)/],
    [{ maxReadCapacity: 2.5 }, /maxReadCapacity must be a positive integer \(got 2\.5\)/],
    [{ minWriteCapacity: -3 }, /minWriteCapacity must be a positive integer/],
    [{ minWriteCapacity: 100, maxWriteCapacity: 50 }, /minWriteCapacity \(100\) must not exceed maxWriteCapacity \(50\)/],
    [{ minReadCapacity: 20, maxReadCapacity: 10 }, /minReadCapacity \(20\) must not exceed maxReadCapacity \(10\)/],
    [{ targetUtilizationPercent: 95 }, /targetUtilizationPercent must be a number from 20 to 90 \(got 95\)/],
    [{ targetUtilizationPercent: 10 }, /targetUtilizationPercent must be a number from 20 to 90/],
    [{ targetUtilizationPercent: Number.NaN }, /targetUtilizationPercent must be a number from 20 to 90/],
  ];
  for (const [capacity, message] of invalid) {
    it(`refuses ${JSON.stringify(capacity)} at synth`, () => {
      expect(() => synthStack({ ledgerCapacity: capacity })).toThrow(message);
    });
  }

  it('accepts the bounds', () => {
    expect(resolveLedgerCapacity({ targetUtilizationPercent: 20, minWriteCapacity: 1, maxWriteCapacity: 1 }).targetUtilizationPercent).toBe(20);
    expect(resolveLedgerCapacity({ targetUtilizationPercent: 90 }).targetUtilizationPercent).toBe(90);
  });

  it('reads the cdk context value', () => {
    expect(ledgerCapacityFromContext(undefined)).toBeUndefined();
    expect(ledgerCapacityFromContext(false)).toBeUndefined();
    expect(ledgerCapacityFromContext('false')).toBeUndefined();
    expect(ledgerCapacityFromContext(true)).toEqual({});
    expect(ledgerCapacityFromContext('true')).toEqual({});
    expect(ledgerCapacityFromContext('{"maxWriteCapacity":2000}')).toEqual({ maxWriteCapacity: 2000 });
    expect(ledgerCapacityFromContext({ targetUtilizationPercent: 50 })).toEqual({ targetUtilizationPercent: 50 });
    expect(() => ledgerCapacityFromContext('yes')).toThrow(/ledgerCapacity: context value must be true, false or a JSON object/);
    expect(() => ledgerCapacityFromContext('[1]')).toThrow(/ledgerCapacity: context value must be/);
    expect(() => ledgerCapacityFromContext({ maxWrite: 5 })).toThrow(/unknown setting\(s\) maxWrite/);
  });
});

/**
 * CloudFormation refuses a stack of more than 500 resources ("Number of resources in stack … is greater
 * than allowed maximum of 500": CloudFormation quotas, https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html),
 * and `cdk synth` fails with it. The quota is per stack: a nested stack counts as one resource of its
 * parent and has 500 of its own. The route functions are in nested stacks by family
 * (lib/route-stacks.ts; docs/decisions/nested-stacks.md): a route adds about five resources to its
 * family's nested stack (function, role, log group, alarm, permission) and two or three to the parent
 * (method, resource, preflight). Every stack keeps room for about 20 more routes. The figures are
 * deterministic: this test fails while there is still room, not at the deploy that cannot happen.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../lambdas/routes';
import { routeStackOf } from '../../lib/route-stacks';
import { synthStack } from './synth';

const CLOUDFORMATION_MAXIMUM = 500;
/** Room kept in every stack, parent and nested, for the next routes: about 20 of them. */
const HEADROOM = 100;

const counts = (s: ReturnType<typeof synthStack>) =>
  Object.fromEntries(Object.entries(s.templates).map(([path, t]) => [path, Object.keys(t.toJSON().Resources as object).length]));

describe('resources per stack', () => {
  it(`stays ${HEADROOM} below CloudFormation's ${CLOUDFORMATION_MAXIMUM} in the stack and each nested stack, with every option that adds resources`, () => {
    const byOptions = {
      default: counts(synthStack()),
      'CloudFront and alarm e-mail': counts(synthStack({ cloudFront: true, alarmEmail: 'ops@example.com' })),
    };
    const all = JSON.stringify(byOptions);
    for (const [options, stacks] of Object.entries(byOptions)) {
      // The parent and one nested stack per family of routes.
      expect(Object.keys(stacks).sort(), options).toEqual(['Tally', 'Tally/AdminRoutes', 'Tally/AnalysisRoutes', 'Tally/IngestRoutes']);
      for (const [stack, n] of Object.entries(stacks)) {
        expect(
          n,
          `${options}, ${stack}: ${n} resources, past ${CLOUDFORMATION_MAXIMUM - HEADROOM} (all: ${all}); split the family (lib/route-stacks.ts) or move more into nested stacks`,
        ).toBeLessThanOrEqual(CLOUDFORMATION_MAXIMUM - HEADROOM);
      }
    }
  });

  it('puts each route function, with its role, log group, alarms and API permission, in its family’s nested stack', () => {
    const s = synthStack();
    const parent = s.templates['Tally']!.toJSON().Resources as Record<string, { Type: string }>;
    for (const route of ROUTES) {
      const fn = s.stack.functions[route.name];
      const nested = s.templates[`Tally/${routeStackOf(route)}Routes`]!.toJSON().Resources as Record<string, { Type: string; Properties: any }>;
      const fnId = s.stack.getLogicalId(fn.fn.node.defaultChild as never);
      expect(nested[fnId]?.Type, route.name).toBe('AWS::Lambda::Function');
      expect(nested[s.stack.getLogicalId(fn.role.node.defaultChild as never)]?.Type, route.name).toBe('AWS::IAM::Role');
      expect(nested[s.stack.getLogicalId(fn.logGroup.node.defaultChild as never)]?.Type, route.name).toBe('AWS::Logs::LogGroup');
      // The failures alarm (and any metric alarm of the function) names it by a reference inside its own stack.
      const alarms = Object.values(nested).filter((r) => r.Type === 'AWS::CloudWatch::Alarm' && JSON.stringify(r.Properties).includes(`{"Ref":"${fnId}"}`));
      expect(alarms.length, route.name).toBeGreaterThanOrEqual(1);
      const permissions = Object.values(nested).filter(
        (r) =>
          r.Type === 'AWS::Lambda::Permission' &&
          r.Properties.Principal === 'apigateway.amazonaws.com' &&
          r.Properties.FunctionName['Fn::GetAtt']?.[0] === fnId,
      );
      expect(permissions, route.name).toHaveLength(1);
      expect(parent[fnId], route.name).toBeUndefined();
    }
    // The parent keeps the API: every method, and no route function.
    expect(Object.values(parent).filter((r) => r.Type === 'AWS::ApiGateway::Method').length).toBeGreaterThanOrEqual(ROUTES.length);
    expect(Object.values(parent).filter((r) => r.Type === 'AWS::Lambda::Permission' && JSON.stringify(r).includes('/prod/'))).toEqual([]);
  });
});

/**
 * CloudFormation refuses a stack of more than 500 resources ("Number of resources in stack … is greater
 * than allowed maximum of 500": CloudFormation quotas, https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html),
 * and `cdk synth` fails with it. Each route adds about eight (function, role, policy, log group,
 * permission, method, resource, alarm), so the stack keeps room for a few more before the next route
 * has to move functions into nested stacks. The figures are deterministic: this test fails while there
 * is still room, not at the deploy that cannot happen.
 */
import { describe, expect, it } from 'vitest';
import { synthStack } from './synth';

const CLOUDFORMATION_MAXIMUM = 500;
/** Room kept for the next routes: about five of them. */
const HEADROOM = 40;

const count = (template: ReturnType<typeof synthStack>['template']) => Object.keys(template.toJSON().Resources as object).length;

describe('resources per stack', () => {
  it(`stays ${HEADROOM} below CloudFormation's ${CLOUDFORMATION_MAXIMUM}, with every option that adds resources`, () => {
    const counts = {
      default: count(synthStack().template),
      'CloudFront and alarm e-mail': count(synthStack({ cloudFront: true, alarmEmail: 'ops@example.com' }).template),
    };
    for (const [options, n] of Object.entries(counts)) {
      expect(n, `${options}: ${n} resources; past ${CLOUDFORMATION_MAXIMUM - HEADROOM}, move route functions into nested stacks`).toBeLessThanOrEqual(
        CLOUDFORMATION_MAXIMUM - HEADROOM,
      );
    }
  });
});

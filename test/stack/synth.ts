/**
 * Test helpers: synthesize the stack fast (no asset bundling, no built-in CloudFormation validation)
 * with cdk.json's context, so tests use the same feature flags as `cdk synth`.
 */
import { App, type AppProps } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { TallyStack, type TallyStackProps } from '../../lib/tally-stack';

export function testApp(options: { bundle?: boolean; outdir?: string } = {}): App {
  const props: AppProps = {
    context: { ...cdkJson.context, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
    builtinCloudFormationValidation: false,
    ...(options.outdir ? { outdir: options.outdir } : {}),
  };
  return new App(props);
}

export interface Synth {
  stack: TallyStack;
  template: Template;
}

export function synthStack(props: TallyStackProps = {}): Synth {
  const app = testApp();
  const stack = new TallyStack(app, 'Tally', props);
  return { stack, template: Template.fromStack(stack) };
}

/** An inline policy of the template and the roles (logical IDs) it applies to. */
export interface InlinePolicy {
  roles: string[];
  document: { Statement: any[] };
}

/**
 * Every inline policy of the template: the AWS::IAM::Policy resources (the CDK's default policies of
 * roles it creates) and the roles' own `Policies` (a function's grants: InlinePolicyRole in
 * lib/function.ts). Both are inline policies to IAM.
 */
export function inlinePolicies(template: Template): InlinePolicy[] {
  const separate = Object.values(template.findResources('AWS::IAM::Policy')).map((p) => ({
    roles: ((p.Properties.Roles ?? []) as Array<{ Ref: string }>).map((r) => r.Ref),
    document: p.Properties.PolicyDocument,
  }));
  const own = Object.entries(template.findResources('AWS::IAM::Role')).flatMap(([id, r]) =>
    ((r.Properties.Policies ?? []) as Array<{ PolicyDocument: InlinePolicy['document'] }>).map((p) => ({ roles: [id], document: p.PolicyDocument })),
  );
  return [...separate, ...own];
}

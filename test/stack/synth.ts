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

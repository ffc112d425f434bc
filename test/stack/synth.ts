/**
 * Test helpers: synthesize the stack fast (no asset bundling, no built-in CloudFormation validation)
 * with cdk.json's context, so tests use the same feature flags as `cdk synth`.
 */
import { App, NestedStack, Stack, type AppProps } from 'aws-cdk-lib';
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
  /**
   * The parent stack and its nested stacks as one template (mergedTemplate): what the deploy creates,
   * with every reference through a nested stack's parameter or output followed to its resource.
   */
  template: Template;
  /** Each stack's own template as CloudFormation receives it, by path ('Tally', 'Tally/AdminRoutes', ...). */
  templates: Record<string, Template>;
}

export function synthStack(props: TallyStackProps = {}): Synth {
  const app = testApp();
  const stack = new TallyStack(app, 'Tally', props);
  return { stack, template: mergedTemplate(stack), templates: stackTemplates(stack) };
}

/** The stack and every stack nested in it, parent first. */
export function stacksOf(stack: Stack): Stack[] {
  return [
    stack,
    ...stack.node
      .findAll()
      .filter((c): c is NestedStack => NestedStack.isNestedStack(c) && c.nestedStackParent === stack)
      .flatMap(stacksOf),
  ];
}

export function stackTemplates(stack: Stack): Record<string, Template> {
  return Object.fromEntries(stacksOf(stack).map((s) => [s.node.path, Template.fromStack(s)]));
}

type Json = any;

/** `value` with each { Ref: p } of a key of `refs` and each `Fn::GetAtt [id, 'Outputs.o']` of `outputs` replaced by what they stand for. */
function substitute(value: Json, refs: Record<string, Json>, outputs: Record<string, Json>): Json {
  if (Array.isArray(value)) return value.map((v) => substitute(v, refs, outputs));
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'Ref' && typeof value.Ref === 'string' && value.Ref in refs) return refs[value.Ref];
  if (keys.length === 1 && keys[0] === 'Fn::GetAtt') {
    const [id, attribute] = value['Fn::GetAtt'] as [string, string];
    const output = outputs[`${id}.${attribute}`];
    if (output !== undefined) return output;
  }
  return Object.fromEntries(keys.map((k) => [k, substitute(value[k], refs, outputs)]));
}

/**
 * One template of the stack and its nested stacks: their resources side by side (a logical ID used
 * twice fails), each nested stack's parameters replaced by the values the parent passes them (so a
 * nested function's grant names the parent's table), and the parent's reads of a nested stack's
 * outputs by the outputs' values (so a method's integration names the nested function). The
 * AWS::CloudFormation::Stack resources stay, with their parameters resolved.
 */
export function mergedTemplate(stack: Stack): Template {
  const parent = Template.fromStack(stack).toJSON();
  const nested = stacksOf(stack)
    .slice(1)
    .map((n) => ({ stack: n as NestedStack, template: Template.fromStack(n).toJSON() }));
  const outputs: Record<string, Json> = {};
  const byNested = new Map<NestedStack, Record<string, Json>>();
  for (const { stack: n, template } of nested) {
    const id = stack.resolve((n.nestedStackResource as { logicalId: string }).logicalId) as string;
    const params = parent.Resources[id].Properties.Parameters ?? {};
    byNested.set(n, params);
    for (const [name, output] of Object.entries(template.Outputs ?? {})) outputs[`${id}.Outputs.${name}`] = (output as { Value: Json }).Value;
  }
  const resources: Record<string, Json> = {};
  const add = (id: string, resource: Json) => {
    if (id in resources) throw new Error(`logical ID ${id} is in two stacks: the merged template cannot hold both`);
    resources[id] = resource;
  };
  for (const [id, r] of Object.entries(parent.Resources)) add(id, substitute(r, {}, outputs));
  for (const { stack: n, template } of nested) {
    const params = byNested.get(n)!;
    for (const [id, r] of Object.entries(template.Resources)) add(id, substitute(r, params, outputs));
  }
  return Template.fromJSON({ ...parent, Resources: resources, Outputs: substitute(parent.Outputs ?? {}, {}, outputs) });
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

/**
 * Test helpers: synthesize the stack fast (no asset bundling, no built-in CloudFormation validation)
 * with cdk.json's context, so tests use the same feature flags as `cdk synth`.
 */
import { App, NestedStack, Stack, type AppProps } from 'aws-cdk-lib';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll } from 'vitest';
import cdkJson from '../../cdk.json';
import { TallyStack, type TallyStackProps } from '../../lib/tally-stack';

/**
 * The assembly directories this test file's apps wrote, removed after its tests: an App with no
 * outdir writes a new cdk.out* directory under the system's temporary folder at each synthesis (assets
 * included, tens of MB) and never removes it, which filled a developer's disk over a few test runs.
 */
const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function testApp(options: { bundle?: boolean; outdir?: string } = {}): App {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'tally-synth-'));
  if (!options.outdir) outdirs.push(outdir);
  const props: AppProps = {
    context: { ...cdkJson.context, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
    builtinCloudFormationValidation: false,
    outdir,
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
  const nested = Object.fromEntries(
    stacksOf(stack)
      .slice(1)
      .map((n) => [stack.resolve(((n as NestedStack).nestedStackResource as { logicalId: string }).logicalId) as string, Template.fromStack(n).toJSON()]),
  );
  return Template.fromJSON(mergeTemplates(Template.fromStack(stack).toJSON(), nested));
}

/**
 * The same from a cloud assembly (`cdk synth`'s output directory), as `cdk deploy` finds the nested
 * templates: each AWS::CloudFormation::Stack's TemplateURL ends with an object key of the stack's
 * asset manifest (<stack>.assets.json), whose source is the nested template's file.
 */
export function assemblyTemplate(outdir: string, stackName: string): Template {
  const read = (file: string) => JSON.parse(readFileSync(join(outdir, file), 'utf8'));
  const parent = read(`${stackName}.template.json`);
  const files = Object.values(read(`${stackName}.assets.json`).files as Record<string, Json>);
  const fileOf = (objectKey: string) =>
    files.find((f) => Object.values(f.destinations as Record<string, { objectKey: string }>).some((d) => d.objectKey === objectKey))!.source.path as string;
  const nested = Object.fromEntries(
    Object.entries(parent.Resources as Record<string, Json>)
      .filter(([, r]) => r.Type === 'AWS::CloudFormation::Stack')
      .map(([id, r]) => {
        const url = JSON.stringify(r.Properties.TemplateURL);
        return [id, read(fileOf(/\/([0-9a-f]{64}\.json)"\]\]\}$/.exec(url)![1]!))];
      }),
  );
  return Template.fromJSON(mergeTemplates(parent, nested));
}

/** mergedTemplate over template JSON: the parent's, and each nested stack's by its logical ID in the parent. */
function mergeTemplates(parent: Json, nestedById: Record<string, Json>): Json {
  const outputs: Record<string, Json> = {};
  for (const [id, template] of Object.entries(nestedById)) {
    for (const [name, output] of Object.entries(template.Outputs ?? {})) outputs[`${id}.Outputs.${name}`] = (output as { Value: Json }).Value;
  }
  const resources: Record<string, Json> = {};
  const add = (id: string, resource: Json) => {
    if (id in resources) throw new Error(`logical ID ${id} is in two stacks: the merged template cannot hold both`);
    resources[id] = resource;
  };
  for (const [id, r] of Object.entries(parent.Resources)) add(id, substitute(r, {}, outputs));
  for (const [id, template] of Object.entries(nestedById)) {
    const params = parent.Resources[id].Properties.Parameters ?? {};
    for (const [rid, r] of Object.entries(template.Resources)) add(rid, substitute(r, params, outputs));
  }
  return { ...parent, Resources: resources, Outputs: substitute(parent.Outputs ?? {}, {}, outputs) };
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

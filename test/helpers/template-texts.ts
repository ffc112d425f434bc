/**
 * The synthesized template (what `cdk deploy` sends), once per test file, and the texts in it that an
 * AWS service executes. Tests take those texts from here, never from the TypeScript constants that
 * built them: a constant can be right while the template is wrong.
 */
import { synthStack } from '../stack/synth';

export interface CfnResource {
  Type: string;
  Properties: Record<string, any>;
}
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
}

let cached: CfnTemplate | undefined;

/** The default stack's template as JSON (synthesized on first use). */
export function templateOf(): CfnTemplate {
  cached ??= synthStack().template.toJSON() as CfnTemplate;
  return cached;
}

/** The resources of one type, with their logical IDs. */
export function resourcesOf(type: string): Array<[string, CfnResource]> {
  return Object.entries(templateOf().Resources).filter(([, r]) => r.Type === type);
}

/**
 * A template value as the deployed text: Fn::Join concatenated, and each Ref / Fn::GetAtt replaced by
 * what `values` gives for the logical ID (a stand-in for what CloudFormation substitutes at deploy).
 */
export function deployedText(value: unknown, values: (logicalId: string, attribute?: string) => string = (id) => `<${id}>`): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v['Fn::Join'])) {
      const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => deployedText(p, values)).join(sep);
    }
    if (typeof v.Ref === 'string') return values(v.Ref);
    if (Array.isArray(v['Fn::GetAtt'])) {
      const [id, attribute] = v['Fn::GetAtt'] as [string, string];
      return values(id, attribute);
    }
  }
  throw new Error(`not a text the template resolves at deploy: ${JSON.stringify(value)}`);
}

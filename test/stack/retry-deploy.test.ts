/**
 * A failed first deploy must be retryable. CloudFormation keeps a resource with DeletionPolicy Retain
 * even when the create that made it rolls back; if that resource also has a fixed physical name, the
 * retry fails with AlreadyExists. RetainExceptOnCreate resources are deleted on that rollback.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { TallyStack, type TallyStackProps } from '../../lib/tally-stack';
import { Template } from 'aws-cdk-lib/assertions';
import { synthStack, testApp } from './synth';

type Resources = Record<string, { Type: string; DeletionPolicy?: string; Properties?: Record<string, unknown> }>;

/**
 * The literal (plain string, not an intrinsic) name properties of a resource: top-level properties
 * named *Name, and Name inside *Input objects (Glue's DatabaseInput and TableInput).
 */
function literalNames(props: Record<string, unknown> = {}): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(props)) {
    if (/Name$/.test(key) && typeof value === 'string') out.push(`${key}=${value}`);
    if (/Input$/.test(key) && value && typeof value === 'object') {
      const name = (value as Record<string, unknown>).Name;
      if (typeof name === 'string') out.push(`${key}.Name=${name}`);
    }
  }
  return out;
}

/**
 * Resources that would survive a rolled-back create and carry a fixed name: they block the retry.
 * A rollback deletes by DeletionPolicy; UpdateReplacePolicy applies only when an update replaces a
 * resource, which CloudFormation refuses anyway for a resource with a custom name.
 */
function blockersOfRetry(resources: Resources): string[] {
  return Object.entries(resources)
    .filter(([, r]) => r.DeletionPolicy === 'Retain')
    .flatMap(([id, r]) => literalNames(r.Properties).map((n) => `${r.Type} ${id} ${n}`));
}

const resourcesOf = (name: string, props: TallyStackProps = {}) => Template.fromStack(new TallyStack(testApp(), name, props)).toJSON().Resources as Resources;

describe('a failed first deploy can be retried', () => {
  it('no resource with a fixed name survives the rollback of its create', () => {
    const { template } = synthStack({ cloudFront: true, alarmEmail: 'ops@example.com' });
    expect(blockersOfRetry(template.toJSON().Resources as Resources)).toEqual([]);
  });

  it('finds such a resource when data is plainly retained (the check can fail)', () => {
    expect(blockersOfRetry(resourcesOf('Tally', { dataRemovalPolicy: RemovalPolicy.RETAIN }))).toEqual([
      expect.stringMatching(/^AWS::Glue::Database .* DatabaseInput\.Name=tally$/),
    ]);
  });

  it('names every resource that is kept on delete after its stack, so two stacks never collide', () => {
    const kept = (resources: Resources) =>
      Object.values(resources)
        .filter((r) => r.DeletionPolicy === 'Retain' || r.DeletionPolicy === 'RetainExceptOnCreate')
        .flatMap((r) => literalNames(r.Properties).map((n) => `${r.Type} ${n}`));
    const a = kept(resourcesOf('Tally'));
    const b = kept(resourcesOf('Tally-Staging'));
    expect(a).toEqual(['AWS::Glue::Database DatabaseInput.Name=tally']);
    expect(b).toEqual(['AWS::Glue::Database DatabaseInput.Name=tally_staging']);
  });
});

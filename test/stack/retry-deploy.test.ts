/**
 * A failed first deploy must be retryable. CloudFormation keeps a resource with DeletionPolicy Retain
 * even when the create that made it rolls back; if that resource also has a fixed physical name, the
 * retry fails with AlreadyExists. RetainExceptOnCreate resources are deleted on that rollback.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { TallyStack, type TallyStackProps } from '../../lib/tally-stack';
import { mergedTemplate, synthStack, testApp } from './synth';
import { TABLES } from '../../lambdas/store/schema';

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

const resourcesOf = (name: string, props: TallyStackProps = {}) => mergedTemplate(new TallyStack(testApp(), name, props)).toJSON().Resources as Resources;

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

/**
 * What would make the rollback of a failed FIRST create fail (ROLLBACK_FAILED: the stack can then only
 * be deleted with --retain-resources, and the retry waits for that by hand). The rules checked:
 *  1. no DynamoDB table with DeletionProtectionEnabled true unless the stack is told it already exists
 *     (deletionProtection: DynamoDB refuses DeleteTable on a protected table, CloudFormation included);
 *  2. no DeletionPolicy Retain (kept even by the rollback of its create) except on CloudWatch Logs
 *     groups and streams with generated names, which hold no data of ours and collide with nothing;
 *     data uses RetainExceptOnCreate, which the rollback of its create deletes;
 *  3. every bucket the create itself writes (a BucketDeployment's destination) is emptied before its
 *     deletion (CDK's auto-delete custom resource) and has DeletionPolicy Delete: CloudFormation cannot
 *     delete a bucket that is not empty. The other buckets are written only at run time;
 *  4. every custom resource is of a type whose delete is known to succeed during that rollback
 *     (REVIEWED_CUSTOM_RESOURCES): a custom resource whose delete fails blocks the rollback too;
 *  5. a bucket receiving S3 server access logs (another bucket's LoggingConfiguration names it) has
 *     DeletionPolicy Retain and a generated name: S3 delivers those logs on a best-effort basis, most
 *     within a few hours, so one can land at any moment of the rollback, and no emptying beforehand
 *     can be the last; the rollback leaves it, and the retry makes a new one. So rule 2 lets such a
 *     bucket be Retain.
 */
const REVIEWED_CUSTOM_RESOURCES: Record<string, string> = {
  'Custom::CDKBucketDeployment': 'deletes the objects it copied (retainOnDelete: false) from a bucket the same rollback deletes',
  'Custom::S3AutoDeleteObjects': 'empties its bucket; succeeds on an empty or already deleted bucket',
  'Custom::AnalyticsViews':
    'every delete answers SUCCESS (a failed DROP VIEW is logged), and each statement removes its own result files from the Athena results bucket (lambdas/handlers/analytics-views.ts, lambdas/adapters/s3-query-result-files.ts)',
};

type Resource = { Type: string; DeletionPolicy?: string; Properties?: Record<string, any> };

function blockersOfFirstRollback(resources: Record<string, Resource>, toldStackExists: boolean): string[] {
  const problems: string[] = [];
  const logDestinations = new Set(
    Object.values(resources)
      .filter((r) => r.Type === 'AWS::S3::Bucket' && r.Properties?.LoggingConfiguration?.DestinationBucketName)
      .map((r) => JSON.stringify(r.Properties!.LoggingConfiguration.DestinationBucketName)),
  );
  const receivesAccessLogs = (id: string) => logDestinations.has(JSON.stringify({ Ref: id }));
  const autoDeleted = new Set(
    Object.values(resources)
      .filter((r) => r.Type === 'Custom::S3AutoDeleteObjects')
      .map((r) => JSON.stringify(r.Properties?.BucketName)),
  );
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::DynamoDB::Table' && r.Properties?.DeletionProtectionEnabled === true && !toldStackExists) {
      problems.push(`${id}: deletion protection on a table the first create makes`);
    }
    const logBucket = r.Type === 'AWS::S3::Bucket' && receivesAccessLogs(id);
    if (r.DeletionPolicy === 'Retain' && !/^AWS::Logs::Log(Group|Stream)$/.test(r.Type) && !logBucket)
      problems.push(`${id}: ${r.Type} with DeletionPolicy Retain`);
    if (logBucket && (r.DeletionPolicy !== 'Retain' || r.Properties?.BucketName !== undefined)) {
      problems.push(
        `${id}: receives S3 server access logs, which arrive hours late, yet the rollback would delete it (DeletionPolicy ${r.DeletionPolicy ?? 'Delete'}${r.Properties?.BucketName ? `, fixed name ${JSON.stringify(r.Properties.BucketName)}` : ''})`,
      );
    }
    if (r.DeletionPolicy === 'Retain' && r.Type === 'AWS::Logs::LogGroup' && typeof r.Properties?.LogGroupName === 'string') {
      problems.push(`${id}: retained log group with the fixed name ${r.Properties.LogGroupName}`);
    }
    if (r.Type === 'Custom::CDKBucketDeployment') {
      const bucket = JSON.stringify(r.Properties?.DestinationBucketName);
      const target = resources[r.Properties?.DestinationBucketName?.Ref];
      if (!autoDeleted.has(bucket) || target?.DeletionPolicy !== 'Delete')
        problems.push(`${id}: writes ${bucket} during the create, which is not emptied and deleted on rollback`);
    }
    if ((r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource') && !(r.Type in REVIEWED_CUSTOM_RESOURCES)) {
      problems.push(
        `${id}: custom resource ${r.Type} whose delete during a create's rollback is not reviewed (add it to REVIEWED_CUSTOM_RESOURCES with the reason its delete succeeds)`,
      );
    }
  }
  return problems;
}

describe('nothing blocks the rollback of a failed first create', () => {
  it('holds for the default stack and for every option that adds resources', () => {
    for (const props of [{}, { cloudFront: true, alarmEmail: 'ops@example.com', ledgerCapacity: {} }, { dashboard: false }] as TallyStackProps[]) {
      expect(blockersOfFirstRollback(resourcesOf('Tally', props), false), JSON.stringify(props)).toEqual([]);
    }
  });

  it('tables get deletion protection only when the stack is told it exists (deletionProtection), and the check sees it', () => {
    const protectedTables = Object.values(resourcesOf('Tally', { deletionProtection: true })).filter(
      (r) => r.Type === 'AWS::DynamoDB::Table' && r.Properties?.DeletionProtectionEnabled === true,
    );
    // The tables holding user data (projects, keys, identities, experiments, assignments, saved insights, dashboards, the audit log, deletions, exports).
    const userData = Object.values(TABLES).filter((t) => t.holdsUserData).length;
    expect(userData).toBe(10);
    expect(protectedTables).toHaveLength(userData);
    expect(Object.values(resourcesOf('Tally')).filter((r) => r.Properties?.DeletionProtectionEnabled === true)).toEqual([]);
    // The same template would block a first create's rollback: the check fails on it.
    expect(blockersOfFirstRollback(resourcesOf('Tally', { deletionProtection: true }), false)).toHaveLength(userData);
    expect(blockersOfFirstRollback(resourcesOf('Tally', { deletionProtection: true }), true)).toEqual([]);
  });

  it('finds plainly retained data, an unemptied written bucket and an unreviewed custom resource (the check can fail)', () => {
    expect(blockersOfFirstRollback(resourcesOf('Tally', { dataRemovalPolicy: RemovalPolicy.RETAIN }), false)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/AWS::DynamoDB::Table with DeletionPolicy Retain/),
        expect.stringMatching(/AWS::S3::Bucket with DeletionPolicy Retain/),
      ]),
    );
    const resources = resourcesOf('Tally');
    const [autoDeleteId] = Object.entries(resources).find(([, r]) => r.Type === 'Custom::S3AutoDeleteObjects')!;
    const withoutAutoDelete = Object.fromEntries(Object.entries(resources).filter(([id]) => id !== autoDeleteId));
    // One finding per deployment that writes the dashboard bucket (the assets, the SDK files, the entry).
    const deployments = Object.values(resources).filter((r) => r.Type === 'Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(3);
    expect(blockersOfFirstRollback(withoutAutoDelete, false)).toEqual(
      deployments.map(() => expect.stringMatching(/writes .* during the create, which is not emptied/)),
    );
    // A log bucket the rollback deletes (as before: RetainExceptOnCreate), or one kept under a fixed name.
    const [logBucketId, logBucket] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::S3::Bucket' && !r.Properties?.LoggingConfiguration)!;
    for (const replaced of [
      { ...logBucket, DeletionPolicy: 'RetainExceptOnCreate' },
      { ...logBucket, Properties: { ...logBucket.Properties, BucketName: 'tally-logs' } },
    ]) {
      expect(blockersOfFirstRollback({ ...resources, [logBucketId]: replaced }, false)).toEqual([
        expect.stringMatching(new RegExp(`^${logBucketId}: receives S3 server access logs, which arrive hours late`)),
      ]);
    }
    const withView = { ...resources, AthenaView: { Type: 'Custom::AthenaView', Properties: {} } };
    expect(blockersOfFirstRollback(withView, false)).toEqual([expect.stringMatching(/^AthenaView: custom resource Custom::AthenaView/)]);
  });

  it('makes the API Gateway stage wait for the account-level CloudWatch role setting, which a rolled-back create removes', () => {
    const resources = resourcesOf('Tally');
    const [accountId, account] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::ApiGateway::Account')!;
    expect(account.DeletionPolicy).toBe('RetainExceptOnCreate');
    const stage = Object.values(resources).find((r) => r.Type === 'AWS::ApiGateway::Stage') as Resource & { DependsOn?: string[] };
    expect(stage.DependsOn).toContain(accountId);
    expect(Object.values(resourcesOf('Tally', { apiAccessLogs: false })).filter((r) => r.Type === 'AWS::ApiGateway::Account')).toEqual([]);
  });
});

/**
 * Least privilege: each function's IAM statements and environment follow its line of the route
 * manifest (lambdas/routes.ts): the dependencies it uses and the access each implies (DEPENDENCIES).
 */
import { RESULTS_BASE, RESULTS_STATE } from '../../lambdas/contract/results-state';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER, DEPENDENCIES, JOBS, ROUTES, type DependencyName, type Uses } from '../../lambdas/routes';
import { TABLES, tableEnvVar, type TableName } from '../../lambdas/store/schema';
import type { TallyFunction } from '../../lib/function';
import { DYNAMO_APPEND, DYNAMO_WRITE, tableActions } from '../../lib/grants';
import { RAW_STREAMS, type StreamName } from '../../lib/raw-streams';
import { inlinePolicies, synthStack, type Synth } from './synth';

let s: Synth;
beforeAll(() => {
  s = synthStack({ cloudFront: true });
});

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const logicalId = (c: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(c.node.defaultChild as never);
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** Every statement of the policies attached to a function's role. */
function statementsOf(fn: TallyFunction): Statement[] {
  const roleId = logicalId(fn.role);
  return inlinePolicies(s.template)
    .filter((p) => p.roles.includes(roleId))
    .flatMap((p) => p.document.Statement as Statement[]);
}

function envOf(fn: TallyFunction): Record<string, unknown> {
  return s.template.toJSON().Resources[logicalId(fn.fn)].Properties.Environment.Variables;
}

/** What a manifest line grants, read from its dependencies (DEPENDENCIES in lambdas/routes.ts). */
interface Access {
  tables: Partial<Record<TableName, 'read' | 'readWrite'>>;
  streams: Partial<Record<StreamName, true>>;
  adminToken: boolean;
  athena: boolean;
  apiKeys: boolean;
}

function accessOf(uses: Uses): Access {
  const access: Access = { tables: {}, streams: {}, adminToken: false, athena: false, apiKeys: false };
  for (const [dep, level] of Object.entries(uses) as Array<[DependencyName, string]>) {
    const implied = DEPENDENCIES[dep];
    if ('table' in implied) access.tables[implied.table] = level as 'read' | 'readWrite';
    if ('stream' in implied) access.streams[implied.stream] = true;
    if ('secret' in implied) access.adminToken = true;
    if ('athena' in implied) access.athena = true;
    if ('apiKeys' in implied) access.apiKeys = true;
  }
  return access;
}

/** Every function with the access its manifest line implies. */
function allFunctions(): Array<{ name: string; fn: TallyFunction; access: Access }> {
  return [
    ...ROUTES.map((r) => ({ name: r.name, fn: s.stack.functions[r.name], access: accessOf(r.uses) })),
    ...JOBS.map((j) => ({ name: j.name, fn: s.stack.jobs[j.name], access: accessOf(j.uses) })),
    { name: 'authorizer', fn: s.stack.authorizer, access: accessOf(AUTHORIZER.uses) },
  ];
}

const mentions = (value: unknown, id: string) => JSON.stringify(value).includes(`"${id}"`);

describe('the manifest', () => {
  it('gives every table, stream and piece of access one dependency, and every dependency one kind of access', () => {
    const tables = Object.values(DEPENDENCIES).flatMap((d) => ('table' in d ? [d.table] : []));
    expect([...tables].sort()).toEqual(Object.keys(TABLES).sort());
    const streams = Object.values(DEPENDENCIES).flatMap((d) => ('stream' in d ? [d.stream] : []));
    expect([...streams].sort()).toEqual(Object.keys(RAW_STREAMS).sort());
    for (const [name, d] of Object.entries(DEPENDENCIES)) {
      const kinds = ['table', 'stream', 'secret', 'objects', 'athena', 'apiKeys', 'setting'].filter((k) => k in d);
      expect(kinds, name).toHaveLength(1);
      if ('table' in d) expect(d.env, name).toContain(tableEnvVar(d.table));
      if ('stream' in d) expect(d.env, name).toContain(RAW_STREAMS[d.stream].envVar);
    }
  });

  it('lets exactly the admin routes read the admin token', () => {
    for (const route of ROUTES) expect('adminToken' in route.uses, route.name).toBe(route.auth === 'admin');
  });
});

describe('IAM statements', () => {
  it('never allow an action on every resource', () => {
    for (const { name, fn } of allFunctions()) {
      for (const st of statementsOf(fn)) expect(st.Resource, `${name}: ${JSON.stringify(st.Action)}`).not.toEqual('*');
    }
  });

  it('grant each function exactly its tables, at its access level, indexes by name', () => {
    for (const { name, fn, access } of allFunctions()) {
      const dynamo = statementsOf(fn).filter((st) => asArray(st.Action).some((a) => a.startsWith('dynamodb:')));
      for (const table of Object.keys(TABLES) as TableName[]) {
        const tableId = logicalId(s.stack.tables[table]);
        const granted = dynamo.filter((st) => mentions(st.Resource, tableId));
        const level = access.tables[table];
        if (!level) {
          expect(granted, `${name} must not touch ${table}`).toHaveLength(0);
          continue;
        }
        const actions = new Set(granted.flatMap((st) => asArray(st.Action)));
        expect([...actions].sort(), `${name} on ${table}`).toEqual([...tableActions(level)].sort());
        const resources = JSON.stringify(granted.map((st) => st.Resource));
        for (const index of TABLES[table].indexes) expect(resources).toContain(`/index/${index.name}`);
        expect(resources).not.toContain('/index/*');
      }
    }
  });

  it('let only the ingest and assignment functions put to the raw streams they use', () => {
    for (const { name, fn, access } of allFunctions()) {
      const firehose = statementsOf(fn).filter((st) => asArray(st.Action).some((a) => a.startsWith('firehose:')));
      for (const stream of Object.keys(RAW_STREAMS) as StreamName[]) {
        const granted = firehose.filter((st) => mentions(st.Resource, logicalId(s.stack.raw.streams[stream])));
        if (access.streams[stream]) {
          expect(granted.flatMap((st) => asArray(st.Action)).sort(), name).toEqual(['firehose:PutRecord', 'firehose:PutRecordBatch']);
        } else {
          expect(granted, `${name} must not put to ${stream}`).toHaveLength(0);
        }
      }
    }
  });

  it('let the export routes that sign download links only read export files (exports/ of the raw bucket), the compaction job write and delete them, no other function touch them', () => {
    const rawId = logicalId(s.stack.raw.bucket);
    const exportsArn = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [rawId, 'Arn'] }, '/exports/*']] };
    const expected: Record<string, string | string[]> = {
      'admin-exports-get': 's3:GetObject',
      'admin-exports-list': 's3:GetObject',
      'compact-landing': ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
    };
    for (const { name, fn } of allFunctions()) {
      const onExports = statementsOf(fn).filter((st) => JSON.stringify(st.Resource).includes('/exports/'));
      if (!(name in expected)) {
        expect(onExports, `${name} must not touch exports/`).toEqual([]);
        continue;
      }
      expect(onExports, name).toEqual([{ Effect: 'Allow', Action: expected[name], Resource: exportsArn }]);
      expect(envOf(fn).EXPORTS_BUCKET).toEqual({ Ref: rawId });
    }
    // The read routes touch no other object of the raw bucket.
    for (const name of ['admin-exports-get', 'admin-exports-list'] as const) {
      expect(statementsOf(s.stack.functions[name]).filter((st) => asArray(st.Action).some((a) => a.startsWith('s3:'))).length, name).toBe(1);
    }
    // The request (a person's user ID) is recorded by the POST, which reads no file.
    expect(statementsOf(s.stack.functions['admin-exports-create']).filter((st) => asArray(st.Action).some((a) => a.startsWith('s3:')))).toEqual([]);
  });

  it('let only the admin functions read the admin token, and only the authorizer the origin secret', () => {
    const tokenId = logicalId(s.stack.adminToken);
    const originId = logicalId(s.stack.edge!.originSecret);
    for (const { name, fn, access } of allFunctions()) {
      const secrets = statementsOf(fn).filter((st) => asArray(st.Action).some((a) => a.startsWith('secretsmanager:')));
      const reads = (id: string) => secrets.some((st) => mentions(st.Resource, id));
      expect(reads(tokenId), name).toBe(!!access.adminToken);
      expect(reads(originId), name).toBe(name === 'authorizer');
      const route = ROUTES.find((r) => r.name === name);
      if (route) expect(!!access.adminToken, name).toBe(route.auth === 'admin');
    }
  });

  it('let only the key create/delete functions manage API Gateway keys and usage plans, verb by verb', () => {
    for (const { name, fn, access } of allFunctions()) {
      const apigw = statementsOf(fn).filter((st) => asArray(st.Action).some((a) => a.startsWith('apigateway:')));
      if (!access.apiKeys) {
        expect(apigw, name).toHaveLength(0);
        continue;
      }
      const byVerb = Object.fromEntries(apigw.map((st) => [asArray(st.Action).join(), JSON.stringify(st.Resource)]));
      expect(Object.keys(byVerb).sort()).toEqual(['apigateway:DELETE', 'apigateway:GET', 'apigateway:PATCH', 'apigateway:POST']);
      expect(byVerb['apigateway:GET']).not.toContain('/apikeys/*');
      expect(byVerb['apigateway:PATCH']).not.toContain('/apikeys');
      for (const resources of Object.values(byVerb)) expect(resources).toMatch(/::\/(apikeys|usageplans)/);
    }
  });

  it('let only Athena-querying functions query, in the stack workgroup, reading raw prefixes only; only the results query writes its state, only the compaction job curated/', () => {
    const usesResultsQuery = new Set<string>([...ROUTES, ...JOBS].filter((f) => 'resultsQuery' in f.uses).map((f) => f.name));
    expect(usesResultsQuery.size).toBeGreaterThan(0);
    for (const { name, fn, access } of allFunctions()) {
      const statements = statementsOf(fn);
      const athena = statements.filter((st) => asArray(st.Action).some((a) => a.startsWith('athena:')));
      // The export files' reads (exports/ only) are checked by the test above.
      const s3 = statements.filter((st) => asArray(st.Action).some((a) => a.startsWith('s3:')) && !JSON.stringify(st.Resource).includes('/exports/'));
      if (!access.athena) {
        expect([...athena, ...s3], name).toHaveLength(0);
        continue;
      }
      expect(JSON.stringify(athena)).toContain('workgroup/Tally-analysts');
      const reads = s3.filter((st) => asArray(st.Action).includes('s3:GetObject') && mentions(st.Resource, logicalId(s.stack.raw.bucket)));
      const objects = JSON.stringify(reads.map((st) => st.Resource));
      expect(objects).toContain('/landing/*');
      expect(objects).toContain('/curated/*');
      expect(objects).not.toContain('errors/');
      const writes = s3.filter((st) => asArray(st.Action).includes('s3:PutObject') && mentions(st.Resource, logicalId(s.stack.raw.bucket)));
      // The raw bucket is written only under the incremental results state's prefix, by the results query.
      if (usesResultsQuery.has(name)) {
        expect(writes, name).toHaveLength(1);
        expect(JSON.stringify(writes[0]!.Resource), name).toContain(`/${RESULTS_STATE.prefix}*`);
        for (const spec of Object.values(RAW_STREAMS)) expect(JSON.stringify(writes[0]!.Resource), name).not.toContain(`/${spec.prefix}`);
        expect(JSON.stringify(writes[0]!.Resource), name).not.toContain('/curated/');
      } else if (name === 'compact-landing') {
        // Generations and the compaction state under curated/; landing/ deleted (compacted hours past
        // retention) and written back without a deleted person's lines; the results state and base of a
        // deleted person's project deleted (docs/decisions/erasure.md).
        expect(writes.map((w) => JSON.stringify(w.Resource)).sort(), name).toEqual([
          expect.stringContaining('/curated/*'),
          expect.stringContaining('/landing/*'),
        ]);
        const deletes = s3.filter((st) => asArray(st.Action).includes('s3:DeleteObject')).map((st) => JSON.stringify(st.Resource));
        const prefixes = (resources: string[]) => resources.flatMap((r) => [...r.matchAll(/\/([a-z-]+)\/\*/g)].map((m) => m[1])).sort();
        // And the Athena result files of a deleted person's cached insight queries and of its own links query (the results bucket's prefix).
        expect(prefixes(deletes), name).toEqual(['curated', 'landing', 'results', RESULTS_BASE.prefix.slice(0, -1), RESULTS_STATE.prefix.slice(0, -1)].sort());
        expect(deletes.filter((r) => r.includes('/results/*')).join(), name).not.toContain(logicalId(s.stack.raw.bucket));
      } else {
        expect(writes, name).toHaveLength(0);
      }
    }
  });
});

describe("Athena's access to the Glue Data Catalog", () => {
  // Athena's guide (docs/decisions/least-privilege-from-one-table.md, "Athena and the default database").
  const catalog = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':glue:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':catalog']] };
  const defaultDatabase = {
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':glue:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':database/default']],
  };
  /** The Glue actions a function may call on a resource (its Allow statements naming it). */
  const allowedOn = (statements: Statement[], resource: unknown) =>
    new Set(
      statements
        .filter((st) => st.Effect === 'Allow' && asArray(st.Resource as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify(resource)))
        .flatMap((st) => asArray(st.Action)),
    );

  it('lets every function that runs Athena queries read the default database and the catalog (glue:GetDatabase), and nothing more there', () => {
    const runners = allFunctions().filter(({ fn }) => statementsOf(fn).some((st) => asArray(st.Action).includes('athena:StartQueryExecution')));
    expect(runners.map((f) => f.name)).toEqual(
      allFunctions()
        .filter((f) => f.access.athena)
        .map((f) => f.name),
    );
    expect(runners.length).toBeGreaterThan(0);
    for (const { name, fn } of runners) {
      const statements = statementsOf(fn);
      expect([...allowedOn(statements, defaultDatabase)], name).toEqual(['glue:GetDatabase']);
      expect(allowedOn(statements, catalog).has('glue:GetDatabase'), name).toBe(true);
    }
  });

  it('gives the default database to no other function', () => {
    for (const { name, fn, access } of allFunctions()) {
      if (access.athena) continue;
      expect(allowedOn(statementsOf(fn), defaultDatabase).size, name).toBe(0);
    }
  });
});

/** An admin write's function may put and update audit log entries, and do nothing else with that table. */
function expectAppendsToAuditOnly(statements: { Action: unknown; Resource: unknown }[]) {
  const audit = statements.filter((st) => mentions(st.Resource, logicalId(s.stack.tables.audit_log)));
  expect(audit.flatMap((st) => asArray(st.Action as string | string[])).sort()).toEqual([...DYNAMO_APPEND].sort());
}

describe('the planning function (POST .../plan)', () => {
  it('reads the projects and experiments, queries Athena over the raw tables, and writes nothing but its query results and its audit entry', () => {
    const statements = statementsOf(s.stack.functions['admin-plan-compute']);
    const actions = statements.filter((st) => !mentions(st.Resource, logicalId(s.stack.tables.audit_log))).flatMap((st) => asArray(st.Action));
    for (const action of DYNAMO_WRITE) expect(actions, action).not.toContain(action);
    expectAppendsToAuditOnly(statements);
    const tables = statements.filter((st) => asArray(st.Action).some((a) => a.startsWith('dynamodb:'))).map((st) => JSON.stringify(st.Resource));
    for (const table of ['projects', 'experiments'] as const) expect(tables.join(), table).toContain(logicalId(s.stack.tables[table]));
    for (const table of ['results', 'events', 'identities', 'api_keys', 'assignments'] as const) {
      expect(tables.join(), table).not.toContain(logicalId(s.stack.tables[table]));
    }
    expect(actions.some((a) => a.startsWith('firehose:'))).toBe(false);
    expect(actions).toContain('athena:StartQueryExecution');
    const rawWrites = statements.filter((st) => asArray(st.Action).includes('s3:PutObject') && mentions(st.Resource, logicalId(s.stack.raw.bucket)));
    expect(rawWrites).toHaveLength(0);
    expect(JSON.stringify(statements.map((st) => st.Resource))).not.toContain(JSON.stringify({ Ref: logicalId(s.stack.analytics.resultsState) }));
  });
});

describe('the insights functions (POST .../insights/<kind>, GET .../insights/queries/{query_id})', () => {
  it.each(['admin-insights-trends', 'admin-insights-funnels', 'admin-insights-retention', 'admin-insights-query-get'] as const)(
    '%s reads the projects, reads and writes only the insight queries table (and appends its audit entry), queries Athena over the raw tables, and writes nothing else',
    (name) => {
      const statements = statementsOf(s.stack.functions[name]);
      const actions = statements.flatMap((st) => asArray(st.Action));
      if (name === 'admin-insights-query-get') expect(JSON.stringify(statements)).not.toContain(logicalId(s.stack.tables.audit_log));
      else expectAppendsToAuditOnly(statements);
      const dynamo = statements.filter(
        (st) => asArray(st.Action).some((a) => a.startsWith('dynamodb:')) && !mentions(st.Resource, logicalId(s.stack.tables.audit_log)),
      );
      const writes = dynamo.filter((st) => asArray(st.Action).some((a) => DYNAMO_WRITE.includes(a)));
      expect(writes.map((st) => JSON.stringify(st.Resource))).toEqual([JSON.stringify({ 'Fn::GetAtt': [logicalId(s.stack.tables.insight_queries), 'Arn'] })]);
      const read = dynamo.map((st) => JSON.stringify(st.Resource)).join();
      expect(read).toContain(logicalId(s.stack.tables.projects));
      for (const table of ['results', 'events', 'identities', 'api_keys', 'assignments', 'experiments'] as const) {
        expect(read, table).not.toContain(logicalId(s.stack.tables[table]));
      }
      expect(actions.some((a) => a.startsWith('firehose:'))).toBe(false);
      expect(actions).toEqual(expect.arrayContaining(['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults']));
      const rawWrites = statements.filter((st) => asArray(st.Action).includes('s3:PutObject') && mentions(st.Resource, logicalId(s.stack.raw.bucket)));
      expect(rawWrites).toHaveLength(0);
      expect(JSON.stringify(statements.map((st) => st.Resource))).not.toContain(JSON.stringify({ Ref: logicalId(s.stack.analytics.resultsState) }));
    },
  );
});

describe('grants from what the results job does: INSERT INTO the projected state table', () => {
  // What Athena's Hive metastore may call for the partitions an INSERT INTO writes: it looks them up
  // (singly or in batches) and creates or updates them, even under partition projection
  // (docs/decisions/first-deploy-rollback.md, "Grants for INSERT INTO").
  const METASTORE_ON_INSERT = [
    'glue:GetTable',
    'glue:GetPartition',
    'glue:GetPartitions',
    'glue:BatchGetPartition',
    'glue:CreatePartition',
    'glue:BatchCreatePartition',
    'glue:UpdatePartition',
    'glue:BatchUpdatePartition',
  ];
  const stateTable = () => JSON.stringify({ Ref: logicalId(s.stack.analytics.resultsState) });

  it('lets every function that writes the state call each of them on the state table', () => {
    const writers = [...ROUTES, ...JOBS].filter((f) => 'resultsQuery' in f.uses);
    expect(writers.map((f) => f.name)).toContain('results-job');
    for (const { name, fn } of allFunctions().filter((f) => writers.some((w) => w.name === f.name))) {
      const onState = statementsOf(fn).filter((st) => JSON.stringify(st.Resource).includes(stateTable()));
      const allowed = new Set(onState.flatMap((st) => asArray(st.Action)));
      for (const action of METASTORE_ON_INSERT) expect(allowed.has(action), `${name}: ${action}`).toBe(true);
    }
  });

  it('lets the state writers INSERT INTO the base table too, and delete objects under results-base/ only (superseded generations)', () => {
    const baseTable = JSON.stringify({ Ref: logicalId(s.stack.analytics.resultsBase) });
    const writers = new Set<string>([...ROUTES, ...JOBS].filter((f) => 'resultsQuery' in f.uses).map((f) => f.name));
    for (const { name, fn } of allFunctions()) {
      const statements = statementsOf(fn);
      const onBase = statements.filter((st) => JSON.stringify(st.Resource).includes(baseTable));
      const allowed = new Set(onBase.flatMap((st) => asArray(st.Action)));
      const deletes = statements.filter((st) => asArray(st.Action).includes('s3:DeleteObject'));
      if (!writers.has(name)) {
        expect(onBase, name).toEqual([]);
        continue;
      }
      for (const action of METASTORE_ON_INSERT) expect(allowed.has(action), `${name}: ${action}`).toBe(true);
      expect(deletes, name).toHaveLength(1);
      expect(JSON.stringify(deletes[0]!.Resource), name).toContain(`/results-base/*`);
      expect(asArray(deletes[0]!.Resource), name).toHaveLength(1);
    }
  });

  it('lets no other function touch the state table', () => {
    const writers = new Set<string>([...ROUTES, ...JOBS].filter((f) => 'resultsQuery' in f.uses).map((f) => f.name));
    for (const { name, fn } of allFunctions().filter((f) => !writers.has(f.name))) {
      expect(JSON.stringify(statementsOf(fn).map((st) => st.Resource)), name).not.toContain(stateTable());
    }
  });
});

describe('environment', () => {
  it('names each granted table, stream and the secret by reference, never by value', () => {
    for (const { name, fn, access } of allFunctions()) {
      const env = envOf(fn);
      for (const table of Object.keys(access.tables) as TableName[]) {
        expect(env[tableEnvVar(table)], `${name} ${table}`).toEqual({ Ref: logicalId(s.stack.tables[table]) });
      }
      for (const table of Object.keys(TABLES) as TableName[]) {
        if (!access.tables[table]) expect(env, name).not.toHaveProperty(tableEnvVar(table));
      }
      for (const stream of Object.keys(access.streams) as StreamName[]) {
        expect(env[RAW_STREAMS[stream].envVar], name).toEqual({ Ref: logicalId(s.stack.raw.streams[stream]) });
      }
      if (access.adminToken) expect(env.ADMIN_TOKEN_SECRET_ARN, name).toEqual({ Ref: logicalId(s.stack.adminToken) });
      else expect(env, name).not.toHaveProperty('ADMIN_TOKEN_SECRET_ARN');
      expect(env.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('generates the admin token in Secrets Manager: no value in the template', () => {
    const secret = s.template.toJSON().Resources[logicalId(s.stack.adminToken)].Properties;
    expect(secret.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    expect(secret).not.toHaveProperty('SecretString');
    s.template.hasOutput('AdminTokenSecretArn', { Value: { Ref: logicalId(s.stack.adminToken) } });
  });

  it('wires the rate-limit registry by API id, stage name and plan prefix (no plan IDs: that would be a cycle)', () => {
    const env = envOf(s.stack.functions['admin-keys-create']);
    expect(env.RATE_LIMIT_REST_API_ID).toEqual({ Ref: logicalId(s.stack.api.api) });
    expect(env.RATE_LIMIT_STAGE).toBe('prod');
    expect(env.RATE_LIMIT_PLAN_PREFIX).toBe('Tally-');
  });

  it('lets only the errors/ rule send to its queue (EventBridge, this rule’s ARN), over TLS only; no role or function is added for it', () => {
    const policies = Object.values(s.template.findResources('AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(1);
    const queue = logicalId(s.stack.raw.deliveryErrorsQueue);
    expect(policies[0]!.Properties.Queues).toEqual([{ Ref: queue }]);
    const statements = policies[0]!.Properties.PolicyDocument.Statement as Array<Statement & { Principal: unknown; Condition: unknown }>;
    expect(statements.filter((st) => st.Effect === 'Allow')).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
        Resource: { 'Fn::GetAtt': [queue, 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalId(s.stack.raw.deliveryErrorsRule), 'Arn'] } } },
      },
    ]);
    expect(statements.filter((st) => st.Effect === 'Deny')).toEqual([
      expect.objectContaining({ Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
    // The rule's target needs no role: SQS takes the queue policy (no RoleArn on the target).
    const rule = s.template.toJSON().Resources[logicalId(s.stack.raw.deliveryErrorsRule)].Properties;
    expect(rule.Targets[0]).not.toHaveProperty('RoleArn');
  });
});

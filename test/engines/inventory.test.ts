/**
 * The inventory of texts the synthesized template hands to an AWS service to execute, and the test
 * that executes each with its engine (or, where no engine installs here, says what checks it). It fails
 *  - on a resource type nobody has reviewed for such texts;
 *  - on a string anywhere in the template that looks like an executable text (VTL, a mapping
 *    expression, a Firehose namespace or jq query, SQL, EMF, a schedule) at a property this inventory
 *    does not list;
 *  - on a listed test that does not take its texts from the synthesized template.
 * So a new kind of executable text cannot slip past the engine tests.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resourcesOf, templateOf } from '../helpers/template-texts';

interface Executable {
  /** Property paths: dots between names, [] for any array item, * for any key of a map (keys may hold dots). */
  paths: string[];
  /** The engine that runs it on AWS, and how the test runs it here. */
  engine: string;
  /** The test that executes it, taking it from the synthesized template. */
  test: string;
}

const FIREHOSE = 'test/stack/landing-layout.test.ts';
const GATEWAY = 'test/engines/gateway-templates.test.ts';
const GLUE = 'test/engines/glue-types.test.ts';
const INVENTORY = 'test/engines/inventory.test.ts';

/** Resource type -> its executable texts ([] when reviewed and none). */
const INVENTORY_OF: Record<string, Executable[]> = {
  'AWS::KinesisFirehose::DeliveryStream': [
    {
      // No processors, no jq (landing by arrival hour): the prefixes are the only texts Firehose evaluates.
      paths: ['ExtendedS3DestinationConfiguration.Prefix', 'ExtendedS3DestinationConfiguration.ErrorOutputPrefix'],
      engine: "the prefix namespaces evaluated as Firehose documents (the timestamp namespace only: no record's value in a key)",
      test: FIREHOSE,
    },
  ],
  'AWS::ApiGateway::GatewayResponse': [
    { paths: ['ResponseTemplates.*', 'ResponseParameters.*'], engine: 'velocityjs (simple variable substitution)', test: GATEWAY },
  ],
  'AWS::ApiGateway::Method': [
    {
      paths: [
        'Integration.RequestTemplates.*',
        'Integration.IntegrationResponses[].ResponseTemplates.*',
        'Integration.IntegrationResponses[].ResponseParameters.*',
      ],
      engine: 'velocityjs (VTL, with Java String.matches)',
      test: GATEWAY,
    },
  ],
  'AWS::ApiGateway::Stage': [{ paths: ['AccessLogSetting.Format'], engine: 'velocityjs ($context substitution)', test: GATEWAY }],
  'AWS::Glue::Table': [
    {
      paths: [
        'TableInput.StorageDescriptor.Columns[].Type',
        'TableInput.PartitionKeys[].Type',
        'TableInput.StorageDescriptor.SerdeInfo.*',
        'TableInput.Parameters.*',
      ],
      engine: 'DuckDB reading the local files with the declared columns, types and projection',
      test: GLUE,
    },
  ],
  'AWS::Events::Rule': [
    { paths: ['ScheduleExpression'], engine: "no engine installs here: parsed below with EventBridge's documented grammar", test: INVENTORY },
    {
      paths: ['EventPattern'],
      engine:
        'no maintained matcher installs from npm (AWS’s event-ruler is Java): test/helpers/event-pattern.ts matches exactly the operators used (prefix, equals) against the S3 user guide’s example Object Created event',
      test: 'test/stack/delivery-errors.test.ts',
    },
  ],
  'AWS::CloudWatch::Alarm': [
    {
      paths: ['Metrics[].Expression'],
      engine: 'no engine installs here: every id a metric-math expression names is a metric of the same alarm (below)',
      test: INVENTORY,
    },
  ],
  // Reviewed: configuration, names and policies, no text a service executes. The SQL the analytics-views
  // custom resource runs is in its function's code (Trino grammar check: test/unit/athena-sql-grammar.test.ts);
  // IAM policies are asserted by test/stack/iam.test.ts; the dashboard's CSP is executed by Chromium in the
  // dashboard tests.
  // Cognito (the sign-in user pool): configuration; its message templates are the CDK's defaults with
  // Cognito's own {####} placeholder, no text of Tally's that a service runs.
  'AWS::Cognito::UserPool': [],
  'AWS::Cognito::UserPoolClient': [],
  'AWS::Cognito::UserPoolGroup': [],
  'AWS::Cognito::UserPoolDomain': [],
  'AWS::S3::Bucket': [],
  'AWS::S3::BucketPolicy': [],
  'AWS::DynamoDB::Table': [],
  'AWS::IAM::Role': [],
  'AWS::IAM::Policy': [],
  'AWS::Logs::LogGroup': [],
  'AWS::Logs::LogStream': [],
  'AWS::SecretsManager::Secret': [],
  'AWS::SQS::Queue': [],
  'AWS::SQS::QueuePolicy': [],
  'AWS::Glue::Database': [],
  'AWS::Athena::WorkGroup': [],
  'AWS::Lambda::Function': [],
  'AWS::Lambda::EventInvokeConfig': [],
  'AWS::Lambda::Permission': [],
  // A nested stack's template is a file in the bootstrap bucket (TemplateURL); its resources are in the merged template (test/stack/synth.ts).
  'AWS::CloudFormation::Stack': [],
  'AWS::Lambda::LayerVersion': [],
  'AWS::ApiGateway::RestApi': [],
  'AWS::ApiGateway::Account': [],
  'AWS::ApiGateway::Deployment': [],
  'AWS::ApiGateway::Resource': [],
  'AWS::ApiGateway::UsagePlan': [],
  'AWS::ApiGateway::UsagePlanKey': [],
  'AWS::ApiGateway::ApiKey': [],
  'AWS::ApiGateway::Authorizer': [],
  'AWS::CloudFront::ResponseHeadersPolicy': [],
  'AWS::CloudFront::OriginAccessControl': [],
  'AWS::CloudFront::Distribution': [],
  'Custom::S3AutoDeleteObjects': [],
  'Custom::CDKBucketDeployment': [],
  'Custom::AnalyticsViews': [],
};

/** What an executable text looks like, whatever property holds it. */
const LOOKS_EXECUTABLE: Array<[string, RegExp]> = [
  ['VTL or $context variable', /\$(context|input|util|stageVariables)\.|#(set|if|foreach)\s*\(/],
  ['API Gateway mapping expression', /^(method|integration|gatewayresponse)\.(request|response)\./],
  ['Firehose namespace', /!\{[A-Za-z]+:/],
  ['jq query', /^\{\s*"[^"]+"\s*:\s*[.(]/],
  ['SQL', /^\s*(SELECT|WITH|INSERT|CREATE|UNLOAD|DELETE|MERGE)\s/i],
  ['EMF', /"_aws"\s*:/],
  ['schedule', /^(rate|cron)\(/],
  ['metric math', /^[a-z]\w*(\s+[-+*/]\s+[a-z0-9]\w*)+$/],
];
/**
 * Properties AWS executes whatever their value looks like (an event pattern is a JSON object of plain
 * strings): found anywhere, they must be listed.
 */
const EXECUTABLE_PROPERTIES = new Set([
  'EventPattern',
  'InputTransformer',
  'InputTemplate',
  'InputPath',
  'DefinitionString',
  'Definition',
  'FilterPattern',
  'ZipFile',
  'RequestMappingTemplate',
  'ResponseMappingTemplate',
  'QueryString',
  'ScheduleExpression',
  'Expression',
]);

/** Every property path of a value (normalised like leaves). */
function propertyPaths(value: unknown, path: string, out: string[]): void {
  if (Array.isArray(value)) value.forEach((v) => propertyPaths(v, `${path}[]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith('Fn::') || k === 'Ref') continue;
      const here = path ? `${path}.${k}` : k;
      out.push(here);
      propertyPaths(v, here, out);
    }
  }
}

/** A Glue column type: the value of a Type property in a column list. */
const GLUE_TYPE = /^(string|boolean|double|float|bigint|int|smallint|tinyint|date|timestamp|decimal\(.*\)|array<.*>|map<.*>|struct<.*>)$/;

/** Every string leaf of a value with its normalised path (array items [], Fn::Join parts included). */
function leaves(value: unknown, path: string, out: Array<[string, string]>): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v) => leaves(v, `${path}[]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // An intrinsic function stands for the text it resolves to: its parts are at the same path.
      if (k.startsWith('Fn::') || k === 'Ref') leaves(v, path, out);
      else leaves(v, path ? `${path}.${k}` : k, out);
    }
  }
}

/** A listed path covers itself and everything inside it (an event pattern is an object of strings). */
function covers(pattern: string, path: string): boolean {
  return pathMatches(pattern, path) || [...path.matchAll(/[.[]/g)].some((m) => pathMatches(pattern, path.slice(0, m.index)));
}

function pathMatches(pattern: string, path: string): boolean {
  const re = new RegExp(
    '^' +
      pattern
        .split('.')
        .map((part) => (part === '*' ? '.+' : part.replace(/[.*+?^${}()|\\]/g, '\\$&').replace(/\\\[\\\]|\[\]/g, '(\\[\\])+')))
        .join('\\.') +
      '(\\[\\])*$',
  );
  return re.test(path);
}

describe('executable texts of the synthesized template', () => {
  it('knows every resource type of the template', () => {
    const types = new Set(Object.values(templateOf().Resources).map((r) => r.Type));
    expect(
      [...types].filter((t) => !(t in INVENTORY_OF)),
      'review these types for texts AWS executes and list them above',
    ).toEqual([]);
  });

  it('finds every string that looks executable at a listed property', () => {
    const unlisted: string[] = [];
    for (const [id, resource] of Object.entries(templateOf().Resources)) {
      const found: Array<[string, string]> = [];
      leaves(resource.Properties ?? {}, '', found);
      const listed = (INVENTORY_OF[resource.Type] ?? []).flatMap((e) => e.paths);
      for (const [path, text] of found) {
        const kind = LOOKS_EXECUTABLE.find(([, re]) => re.test(text))?.[0] ?? (path.endsWith('[].Type') && GLUE_TYPE.test(text) ? 'Glue type' : undefined);
        if (kind && !listed.some((p) => covers(p, path))) unlisted.push(`${resource.Type} ${id} ${path} (${kind}): ${text.slice(0, 80)}`);
      }
    }
    expect(unlisted).toEqual([]);
  });

  it('finds every property AWS executes by its name (event patterns, state machines, input templates…) at a listed path', () => {
    const unlisted: string[] = [];
    for (const [id, resource] of Object.entries(templateOf().Resources)) {
      const paths: string[] = [];
      propertyPaths(resource.Properties ?? {}, '', paths);
      const listed = (INVENTORY_OF[resource.Type] ?? []).flatMap((e) => e.paths);
      for (const path of paths) {
        const name = path.split('.').at(-1)!.replace(/\[\]$/, '');
        if (EXECUTABLE_PROPERTIES.has(name) && !listed.some((p) => covers(p, path) || p.startsWith(`${path}.`) || p.startsWith(`${path}[]`))) {
          unlisted.push(`${resource.Type} ${id} ${path}`);
        }
      }
    }
    expect(unlisted).toEqual([]);
  });

  it('lists only properties the template has, each executed by a test that reads the synthesized template', () => {
    for (const [type, executables] of Object.entries(INVENTORY_OF)) {
      for (const e of executables) {
        const source = readFileSync(e.test, 'utf8');
        expect(source, `${e.test} takes ${type}'s texts from the template`).toMatch(/resourcesOf\(|templateOf\(|synthStack\(/);
        const found: Array<[string, string]> = [];
        for (const [, r] of resourcesOf(type)) leaves(r.Properties, '', found);
        for (const p of e.paths)
          expect(
            found.some(([path]) => covers(p, path)),
            `${type} has ${p}`,
          ).toBe(true);
      }
    }
  });

  it('the schedule expressions follow EventBridge’s grammar (rate(value unit), cron of six fields)', () => {
    // EventBridge user guide, "Creating a rule that runs on a schedule": rate(value unit) with a positive
    // whole value and minute|minutes|hour|hours|day|days (singular for 1); cron(minutes hours
    // day-of-month month day-of-week year), one of the day fields "?".
    const rules = resourcesOf('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression);
    expect(rules.length).toBeGreaterThan(0);
    for (const [id, r] of rules) {
      const text = r.Properties.ScheduleExpression as string;
      const rate = /^rate\(([1-9]\d*) (minute|minutes|hour|hours|day|days)\)$/.exec(text);
      const cron = /^cron\((\S+ ){5}\S+\)$/.exec(text);
      expect(rate || cron, `${id}: ${text}`).toBeTruthy();
      if (rate) expect(rate[1] === '1', `${id}: ${text} (singular unit exactly for 1)`).toBe(!rate[2]!.endsWith('s'));
      if (cron) expect(text.split(' ').filter((f) => f.replace(/[()]/g, '') === '?').length, `${id}: ${text}`).toBe(1);
    }
  });

  /** The metric-math functions Tally's alarms use, each documented in "Using math expressions with CloudWatch metrics" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html). */
  const METRIC_MATH_FUNCTIONS = ['FILL'];

  it('every metric-math expression names only metrics of its own alarm', () => {
    for (const [id, r] of resourcesOf('AWS::CloudWatch::Alarm')) {
      const metrics = (r.Properties.Metrics ?? []) as Array<{ Id: string; Expression?: string; MetricStat?: unknown }>;
      const ids = new Set(metrics.filter((m) => m.MetricStat).map((m) => m.Id));
      for (const m of metrics.filter((x) => x.Expression)) {
        // The names but CloudWatch's own functions (upper case, followed by a parenthesis: FILL).
        const names = (m.Expression!.replace(/\b[A-Z_]+(?=\s*\()/g, '').match(/[A-Za-z_]\w*/g) ?? []).filter(Boolean);
        for (const fn of m.Expression!.match(/\b[A-Z_]+(?=\s*\()/g) ?? []) expect(METRIC_MATH_FUNCTIONS, `${id}: ${m.Expression}`).toContain(fn);
        for (const name of names) expect(ids.has(name), `${id}: ${m.Expression} names ${name}`).toBe(true);
        expect(metrics.filter((x) => x.Expression && (x as { ReturnData?: boolean }).ReturnData !== false).length, id).toBe(1);
      }
    }
  });
});

/**
 * CloudWatch alarms on what breaks ingestion or loses events: API 5xx rate, Lambda errors and
 * throttles, Firehose delivery failures, DynamoDB throttling and failed writes of the incremental
 * results state; and on an experiment whose guardrail metric is breached; optionally notified through SNS.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, Metric, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Rule } from 'aws-cdk-lib/aws-events';
import type { DeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import {
  FUNCTION_DIMENSION,
  GUARDRAIL_BREACHED,
  INSIGHT_QUERY_FAILED,
  AUDIT_RECORD_FAILED,
  METRICS_NAMESPACE,
  RESULTS_BASE_WRITE_FAILED,
  RESULTS_STATE_WRITE_FAILED,
  COMPACTION_FAILED,
  CURATED_FILES_OVER_GOAL,
  RETENTION_FAILED,
  DELETION_FAILED,
  EXPORT_FAILED,
} from '../lambdas/contract/metrics';

export interface AlarmsProps {
  api: RestApi;
  functions: Record<string, IFunction>;
  streams: Record<string, DeliveryStream>;
  /** The rule matching objects created under the raw bucket's errors/ (lib/raw-streams.ts). */
  deliveryErrorsRule: Rule;
  /** Firehose buffering interval: data older than a few intervals means delivery is stuck. */
  bufferingInterval: Duration;
  tables: Record<string, Table>;
  /** Share of API requests answered 5xx that raises the alarm (0.01 = 1 %). */
  serverErrorRate: number;
  /**
   * The functions that compute results: they write the incremental results state (a failed write or
   * commit is their ResultsStateWriteFailed metric; a failed base roll-up their ResultsBaseWriteFailed)
   * and report guardrails breached (GuardrailBreached).
   */
  resultsFunctions: Record<string, IFunction>;
  /** The insights functions: a query that fails on Athena, or an Athena call that throws, is their InsightQueryFailed metric. */
  insightFunctions: Record<string, IFunction>;
  /** The admin write functions: an audit entry that could not be written is their AuditRecordFailed metric. */
  auditedFunctions: Record<string, IFunction>;
  /** The compaction job: a failed run is its CompactionFailed metric. */
  compactionFunctions: Record<string, IFunction>;
  /** Sends alarm and OK notifications to this address (an SNS topic is created). */
  email?: string;
}

const FIVE_MINUTES = Duration.minutes(5);

export class Alarms extends Construct {
  readonly alarms: Alarm[] = [];
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    if (props.email) {
      this.topic = new Topic(this, 'Topic', { displayName: 'Tally alarms', enforceSSL: true });
      this.topic.addSubscription(new EmailSubscription(props.email));
    }

    this.add('Api5xxRate', props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Average' }), {
      threshold: props.serverErrorRate,
      description: `More than ${props.serverErrorRate * 100} % of API requests answered 5xx`,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });

    // One alarm per function for both ways an invocation fails, errors and throttles: two alarms each
    // would cost 44 of CloudFormation's 500 resources per stack. FILL(…, 0): a period with throttles
    // but no invocation has no Errors datapoint, and a sum with a missing operand would have none
    // either ("Using math expressions with CloudWatch metrics", FILL).
    for (const [name, fn] of Object.entries(props.functions)) {
      const failures = new MathExpression({
        expression: 'FILL(e, 0) + FILL(t, 0)',
        usingMetrics: {
          e: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
          t: fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        label: `${name} failed or throttled invocations`,
        period: FIVE_MINUTES,
      });
      this.add(`${name}-Failures`, failures, {
        near: fn,
        threshold: 0,
        description: `${name}: invocations failed (unhandled errors, timeouts, out of memory) or were throttled (account or reserved concurrency exhausted); the Errors and Throttles metrics say which`,
      });
    }

    for (const [name, stream] of Object.entries(props.streams)) {
      const metric = (metricName: string, statistic: string) => stream.metric(metricName, { period: FIVE_MINUTES, statistic });
      this.add(`Firehose-${name}-DeliveryFailures`, metric('DeliveryToS3.Success', 'Average'), {
        threshold: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        description: `Firehose ${name}: some records failed delivery to S3 (after retries they go to errors/)`,
      });
      this.add(`Firehose-${name}-DataFreshness`, metric('DeliveryToS3.DataFreshness', 'Maximum'), {
        threshold: props.bufferingInterval.toSeconds() * 3 + 300,
        description: `Firehose ${name}: the oldest record is far older than the buffering interval; delivery is stuck`,
      });
      this.add(`Firehose-${name}-ThrottledRecords`, metric('ThrottledRecords', 'Sum'), {
        threshold: 0,
        description: `Firehose ${name}: PutRecordBatch throttled (handlers retry, then answer 503)`,
      });
    }

    // Any object Firehose writes under errors/ (S3 "Object Created" on EventBridge, matched by the rule):
    // TriggeredRules, "the number of rules that have run and matched with any event" (EventBridge
    // user guide, "Monitoring Amazon EventBridge"), per rule. 5-minute periods: in ALARM within about
    // 6 minutes of the object's creation.
    this.add(
      'Firehose-DeliveryErrorsWritten',
      new Metric({
        namespace: 'AWS/Events',
        metricName: 'TriggeredRules',
        dimensionsMap: { RuleName: props.deliveryErrorsRule.ruleName },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      }),
      {
        threshold: 0,
        description:
          'Firehose wrote records it could not deliver under errors/ of the raw bucket: they are in no table. Fix the cause (the Firehose alarms above, the errorMessage of the records), then re-send them with `npm run redrive` (docs/deploy.md, "Undelivered records")',
      },
    );

    // Emitted by the compaction job (lambdas/handlers/compact-landing.ts) for a run that failed, for a
    // step of a person's deletion that failed in the same run (services/erase-people.ts), and for a
    // person's export that failed after them (services/export-people.ts), for its retention cut
    // that failed (docs/decisions/retention.md), and for a run that wrote more curated files than their
    // goal (domain/curated-files-goal.ts).
    const compactionMetrics = [
      {
        metric: COMPACTION_FAILED,
        description: (name: string) =>
          `${name}: a compaction run failed (the log line before the metric says why). Nothing is lost and the next run retries; until one succeeds, readers scan the growing landing tail (docs/deploy.md, "Compaction")`,
      },
      {
        metric: DELETION_FAILED,
        description: (name: string) =>
          `${name}: a step of a person's deletion failed (the log line before the metric says which deletion and step). The next run retries it from that step; while it fails the person's data can outlive the 24-hour bound (docs/privacy.md)`,
      },
      {
        metric: EXPORT_FAILED,
        description: (name: string) =>
          `${name}: a person's export failed (the log line before the metric says which export). It stays unfinished and the next run does it again (docs/privacy.md, "Access requests")`,
      },
      {
        metric: CURATED_FILES_OVER_GOAL,
        description: (name: string) =>
          `${name}: a compaction run wrote more curated files than one per 128 MiB of each partition (the log line before the metric gives the counts). Nothing is lost or wrong, but readers open more files: Athena's UNLOAD chose the files (docs/deploy.md, "Compaction")`,
      },
      {
        metric: RETENTION_FAILED,
        description: (name: string) =>
          `${name}: the retention cut failed (the log line "retention cut failed" says why). Events older than keepEventsDays stay readable until a run succeeds; nothing younger is touched. The next run retries (docs/deploy.md, "Retention")`,
      },
    ];
    for (const [name, fn] of Object.entries(props.compactionFunctions)) {
      for (const { metric, description } of compactionMetrics) {
        const failed = new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: metric,
          dimensionsMap: { [FUNCTION_DIMENSION]: fn.functionName },
          period: FIVE_MINUTES,
          statistic: 'Sum',
        });
        this.add(`${name}-${metric}`, failed, { near: fn, threshold: 0, description: description(name) });
      }
    }

    // Emitted by the results query (embedded metric format, lambdas/logging/metric.ts) when a state
    // slice's INSERT INTO or its commit fails: results stay exact, but each run then reads more raw data.
    for (const [name, fn] of Object.entries(props.resultsFunctions)) {
      const failed = new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: RESULTS_STATE_WRITE_FAILED,
        dimensionsMap: { [FUNCTION_DIMENSION]: fn.functionName },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
      this.add(`${name}-ResultsStateWriteFailed`, failed, {
        near: fn,
        threshold: 0,
        description: `${name}: the incremental results state was not written or committed (the log line before the metric says why); results stay exact, Athena cost grows until it is`,
      });
      const baseFailed = new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: RESULTS_BASE_WRITE_FAILED,
        dimensionsMap: { [FUNCTION_DIMENSION]: fn.functionName },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
      this.add(`${name}-ResultsBaseWriteFailed`, baseFailed, {
        near: fn,
        threshold: 0,
        description: `${name}: the closed days of the incremental results state were not rolled up into a new base generation, or it was not committed (the log line before the metric says why); results stay exact, the state read per run grows by a day for each day it fails`,
      });
    }

    // Emitted by the results job and the refresh route (lambdas/handlers/guardrail-alarm.ts) for each
    // computation that finds a guardrail breached (issue 22); the log line next to it names the
    // project and experiment. An hour's period: a job running every 15 minutes (up to hourly) keeps
    // the alarm in ALARM while the experiment stays breached, instead of flapping between runs.
    for (const [name, fn] of Object.entries(props.resultsFunctions)) {
      const breached = new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: GUARDRAIL_BREACHED,
        dimensionsMap: { [FUNCTION_DIMENSION]: fn.functionName },
        period: Duration.hours(1),
        statistic: 'Sum',
      });
      this.add(`${name}-GuardrailBreached`, breached, {
        near: fn,
        threshold: 0,
        description: `${name}: an experiment's guardrail metric moved significantly in its bad direction (log line "guardrail breached" names the project and experiment); review the experiment's results and stop it if the harm is real`,
      });
    }

    // Emitted by the insights routes (lambdas/handlers/insights.ts) once per query that fails on
    // Athena (the log line before it names the project, query and reason) and per Athena call that
    // throws (the request also answers 5xx, which the API's 5xx-rate alarm counts).
    for (const [name, fn] of Object.entries(props.insightFunctions)) {
      const failed = new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: INSIGHT_QUERY_FAILED,
        dimensionsMap: { [FUNCTION_DIMENSION]: fn.functionName },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
      this.add(`${name}-InsightQueryFailed`, failed, {
        near: fn,
        threshold: 0,
        description: `${name}: an insight query failed on Athena or an Athena call failed (the log line "insight query failed" says why); the dashboard shows the error`,
      });
    }

    // Emitted by every admin write (lambdas/handlers/admin.ts) whose audit entry could not be written,
    // without a dimension: one alarm for all of them; the log line names the route.
    if (Object.keys(props.auditedFunctions).length > 0) {
      const failed = new Metric({ namespace: METRICS_NAMESPACE, metricName: AUDIT_RECORD_FAILED, period: FIVE_MINUTES, statistic: 'Sum' });
      this.add('AuditRecordFailed', failed, {
        threshold: 0,
        description: `An admin write's audit log entry could not be written (the log lines "audit log begin failed": the write was refused with 503; "audit log finish failed": its status is missing; each names its route)`,
      });
    }

    for (const [name, table] of Object.entries(props.tables)) {
      const throttles = new MathExpression({
        expression: 'FILL(r, 0) + FILL(w, 0)',
        usingMetrics: {
          r: table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
          w: table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        label: `${name} throttled requests`,
        period: FIVE_MINUTES,
      });
      this.add(`Table-${name}-Throttles`, throttles, { threshold: 0, description: `DynamoDB table ${name}: requests throttled` });
    }
  }

  /** Per stack other than this one, the construct holding the alarms about its functions. */
  private readonly elsewhere = new Map<Stack, Construct>();

  /**
   * Where an alarm about `near` goes: beside it when it is in another stack (a route function in its
   * nested stack, lib/route-stacks.ts), so the alarm is counted in that stack's resources and its
   * metric names the function without a cross-stack reference; here otherwise.
   */
  private scopeNear(near: IConstruct | undefined): Construct {
    const stack = near && Stack.of(near);
    if (!stack || stack === Stack.of(this)) return this;
    let scope = this.elsewhere.get(stack);
    if (!scope) this.elsewhere.set(stack, (scope = new Construct(stack, 'Alarms')));
    return scope;
  }

  private add(
    id: string,
    metric: IMetric,
    options: {
      threshold: number;
      description: string;
      comparison?: ComparisonOperator;
      evaluationPeriods?: number;
      datapointsToAlarm?: number;
      /** The function the alarm is about. */
      near?: IConstruct;
    },
  ): void {
    const alarm = new Alarm(this.scopeNear(options.near), id, {
      metric,
      threshold: options.threshold,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm ?? options.evaluationPeriods ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    if (this.topic) {
      alarm.addAlarmAction(new SnsAction(this.topic));
      alarm.addOkAction(new SnsAction(this.topic));
    }
    this.alarms.push(alarm);
  }
}

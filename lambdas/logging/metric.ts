/**
 * Custom CloudWatch metrics as log lines in the embedded metric format (EMF): one JSON object per
 * line on standard output, from which CloudWatch Logs extracts the metric; no PutMetricData call and
 * no extra permission (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 * Written whatever the log level or writer, so the metric never depends on TALLY_LOG_LEVEL; locally
 * the line shows in the terminal next to the warning that explains it.
 * Callers pass names and dimension values only (never client values).
 */
export interface MetricLine {
  namespace: string;
  name: string;
  /** @default 1 */
  value?: number;
  dimensions?: Record<string, string>;
}

/** The EMF object of one metric (Unit Count). */
export function emfRecord({ namespace, name, value = 1, dimensions = {} }: MetricLine, now = Date.now()): Record<string, unknown> {
  return {
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [Object.keys(dimensions)], Metrics: [{ Name: name, Unit: 'Count' }] }],
    },
    ...dimensions,
    [name]: value,
  };
}

export function emitMetric(metric: MetricLine): void {
  process.stdout.write(JSON.stringify(emfRecord(metric)) + '\n');
}

/** The function's name on Lambda (AWS_LAMBDA_FUNCTION_NAME), "local" elsewhere: the metrics' dimension value. */
export function functionName(): string {
  return process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local';
}

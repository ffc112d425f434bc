/**
 * The limits of one AWS call from a Lambda (lambdas/store/aws-sdk-config.ts configures the SDK's
 * DynamoDB and Firehose clients with them). Plain data, shared with the CDK app: no function may
 * time out before a call's deadline (lib/tally-stack.ts checks TallyStackProps.functionTimeout).
 */
export interface CallLimits {
  /** Attempts per call, retries included (the SDK's standard mode decides what is retried, and when). */
  maxAttempts: number;
  /** A new connection's DNS lookup and TCP connect. */
  connectTimeoutMs: number;
  /** An attempt fails (TimeoutError, retried on a new connection) after this long without a byte on its connection. */
  idleTimeoutMs: number;
  /** A call, every attempt and backoff included, fails with a TimeoutError this long after it was sent. */
  deadlineMs: number;
}

/**
 * DynamoDB answers in single-digit milliseconds and Firehose's PutRecordBatch in tens to hundreds (up
 * to 5.6 MB go out on its connection: 4 MiB as base64); the attempts are the SDK's own defaults for
 * the two services. An in-region connect takes milliseconds; 2 s leaves room for a function short of
 * CPU (128 MB is 0.07 of a vCPU) whose event loop is busy when the connection completes. Each deadline
 * leaves room for an attempt that timed out on a dead pooled socket and its retry on a new
 * connection, and stays under the functions' timeout.
 */
export const AWS_CALL_LIMITS = {
  dynamodb: { maxAttempts: 4, connectTimeoutMs: 2_000, idleTimeoutMs: 3_000, deadlineMs: 6_000 },
  firehose: { maxAttempts: 3, connectTimeoutMs: 2_000, idleTimeoutMs: 5_000, deadlineMs: 8_000 },
} as const satisfies Record<string, CallLimits>;

/** The shortest function timeout the stack accepts: the longest call deadline, and a second to answer after it. */
export const MIN_FUNCTION_TIMEOUT_SECONDS = Math.ceil(Math.max(...Object.values(AWS_CALL_LIMITS).map((l) => l.deadlineMs)) / 1000) + 1;

import { FirehoseClient } from '@aws-sdk/client-firehose';
import { callLimits, sdkClientConfig, withDeadline, type AwsClientOptions } from './aws-sdk-config';

/**
 * One Firehose client per process: the SDK's, configured with Tally's call limits (aws-sdk-config.ts).
 * Without options: the region, credentials and endpoint the SDK resolves (on Lambda, the function's own).
 */
export function firehoseClient(options: AwsClientOptions = {}): FirehoseClient {
  const limits = callLimits('firehose', options);
  return withDeadline(new FirehoseClient(sdkClientConfig(limits, options)), limits.deadlineMs);
}

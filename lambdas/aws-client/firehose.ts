/**
 * Amazon Data Firehose's PutRecordBatch over the small signed JSON client: Data goes as base64, and the
 * answer is the SDK's (FailedPutCount, RequestResponses with a RecordId or an ErrorCode per record).
 */
import { AwsJsonClient, type AwsClientOptions } from './json-client';
import type { ResponseMetadata } from './service-error';

export const FIREHOSE = {
  name: 'firehose',
  targetPrefix: 'Firehose_20150804',
  jsonVersion: '1.1',
  maxAttempts: 3,
  backoffBaseMs: 50,
  attemptTimeoutMs: 5_000,
} as const;

export interface FirehoseRecord {
  Data: Uint8Array;
}

export interface PutRecordBatchInput {
  DeliveryStreamName: string;
  Records: FirehoseRecord[];
}

export interface PutRecordBatchOutput {
  FailedPutCount?: number;
  Encrypted?: boolean;
  RequestResponses?: Array<{ RecordId?: string; ErrorCode?: string; ErrorMessage?: string }>;
  $metadata: ResponseMetadata;
}

export class PutRecordBatchCommand {
  readonly operation = 'PutRecordBatch';
  constructor(readonly input: PutRecordBatchInput) {}
}

export class FirehoseClient {
  private readonly json: AwsJsonClient;

  constructor(options: AwsClientOptions = {}) {
    this.json = new AwsJsonClient(FIREHOSE, options);
  }

  async send(command: PutRecordBatchCommand): Promise<PutRecordBatchOutput> {
    const { DeliveryStreamName, Records } = command.input;
    const wire = {
      DeliveryStreamName,
      Records: Records.map((r) => ({ Data: Buffer.from(r.Data.buffer, r.Data.byteOffset, r.Data.byteLength).toString('base64') })),
    };
    return (await this.json.call(command.operation, wire)) as PutRecordBatchOutput;
  }

  destroy(): void {
    this.json.destroy();
  }
}

/**
 * The stores against the AWS SDK's own error objects, with aws-sdk-client-mock (no emulator): what
 * dynalite cannot produce, such as a ConditionalCheckFailedException carrying the existing item
 * (ReturnValuesOnConditionCheckFailure: ALL_OLD), a retried write's attempt count, a call cut off at
 * its deadline, and Firehose's service errors. Everything dynalite can do runs on dynalite
 * (event-ledger, lost-answers and the other store tests).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  FirehoseClient,
  InvalidArgumentException,
  PutRecordBatchCommand,
  ResourceNotFoundException,
  ServiceUnavailableException,
} from '@aws-sdk/client-firehose';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { isTransient, OutcomeUnknownError } from '../../lambdas/domain/transient-error';
import { RawStreamError } from '../../lambdas/ports';
import { DynamoApiKeyStore } from '../../lambdas/store/api-key-store';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { claimKey, commitKey, DynamoEventLedger } from '../../lambdas/store/event-ledger';
import { FirehoseRawStream } from '../../lambdas/store/firehose-raw-stream';
import { firehoseClient } from '../../lambdas/store/firehose-client';
import { DynamoProjectStore } from '../../lambdas/store/project-store';
import type { ApiKeyRecord } from '../../lambdas/domain/api-key';

const ddbMock = mockClient(DynamoDBDocumentClient);
const firehoseMock = mockClient(FirehoseClient);
afterAll(() => {
  ddbMock.restore();
  firehoseMock.restore();
});
beforeEach(() => {
  ddbMock.reset();
  firehoseMock.reset();
});

/** The clients as the Lambdas build them (deadline included); their class's send is the mock. */
const options = { region: 'eu-west-1', credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' } };
const ddb = documentClient(options);
const firehose = firehoseClient(options);

/** A failed condition as the SDK throws it: attempts from the retry middleware, the old item when asked for. */
const conditionFailed = (attempts: number, item?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400, attempts },
    ...(item ? { Item: marshall(item) } : {}),
  });
/** A call cut off at its deadline, as the document client reports it. */
const deadline = () => Object.assign(new Error("No answer within the call's deadline of 6000 ms"), { name: 'TimeoutError' });

describe('events ledger: the existing claim comes with the failure (ALL_OLD), so no read follows', () => {
  const ledger = new DynamoEventLedger(ddb, 'events');
  const now = Date.UTC(2026, 0, 1);

  it("its own claim (an earlier attempt's, answer lost) is claimed; another request's, in its lease, is in flight", async () => {
    ddbMock
      .on(PutCommand)
      .rejectsOnce(conditionFailed(2, { pk: claimKey('p', 'k1'), owner: 'request-1', lease_until: now + 1000 }))
      .rejectsOnce(conditionFailed(1, { pk: claimKey('p', 'k2'), owner: 'request-9', lease_until: now + 1000 }));
    ddbMock.on(GetCommand, { Key: { pk: commitKey('request-9') } }).resolves({});
    expect(await ledger.claim('p', 'k1', 'request-1', now)).toBe('claimed');
    expect(await ledger.claim('p', 'k2', 'request-1', now)).toBe('in_flight');
    // Only the commit was read: the claims came with their failures.
    expect(ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([{ pk: commitKey('request-9') }]);
  });

  it('a claim whose owner committed is a duplicate; the PutItem asked for the old item', async () => {
    ddbMock.on(PutCommand).rejects(conditionFailed(1, { pk: claimKey('p', 'k3'), owner: 'request-7', lease_until: now - 1 }));
    ddbMock.on(GetCommand, { Key: { pk: commitKey('request-7') } }).resolves({ Item: { pk: commitKey('request-7') } });
    expect(await ledger.claim('p', 'k3', 'request-1', now)).toBe('duplicate');
    expect(ddbMock.commandCalls(PutCommand)[0]!.args[0].input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });
});

describe("conditional creates: a failed condition counts as the write's own only on a retried call", () => {
  const projects = new DynamoProjectStore(ddb, 'projects');
  const project = { id: 'p-1', name: 'shop', created_at: '2026-01-01T00:00:00.000Z' };

  it('a retried create that finds its own project (same created_at) succeeds', async () => {
    ddbMock.on(PutCommand).rejects(conditionFailed(2));
    ddbMock.on(GetCommand).resolves({ Item: project });
    await projects.create(project);
    expect(ddbMock.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: { id: 'p-1' }, ConsistentRead: true });
  });

  it('a create tried once that meets an existing item fails, without reading it', async () => {
    ddbMock.on(PutCommand).rejects(conditionFailed(1));
    await expect(projects.create(project)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('a retried create that finds another project under its ID fails', async () => {
    ddbMock.on(PutCommand).rejects(conditionFailed(2));
    ddbMock.on(GetCommand).resolves({ Item: { ...project, created_at: '2025-12-31T00:00:00.000Z' } });
    await expect(projects.create(project)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });

  it('a key create cut off at its deadline, whose read-back fails too, is unknown: transient (503)', async () => {
    const keys = new DynamoApiKeyStore(ddb, 'api_keys');
    const key = { id: 'k-1', key_hash: 'h-1', project_id: 'p-1' } as ApiKeyRecord;
    ddbMock.on(PutCommand).rejects(deadline());
    ddbMock.on(GetCommand).rejects(deadline());
    const err = await keys.create(key).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(isTransient(err)).toBe(true);
  });

  it('a key create cut off at its deadline that landed (the read-back finds it) succeeds', async () => {
    const keys = new DynamoApiKeyStore(ddb, 'api_keys');
    const key = { id: 'k-2', key_hash: 'h-2', project_id: 'p-1' } as ApiKeyRecord;
    ddbMock.on(PutCommand).rejects(deadline());
    ddbMock.on(GetCommand).resolves({ Item: key });
    await keys.create(key);
  });
});

describe("the raw stream on Firehose's errors: retry-me (503) when busy, loud 500 when the stream is wrong", () => {
  const stream = new FirehoseRawStream(firehose, 'tally-events');
  const rows = [{ name: 'a' }, { name: 'b' }];
  const failure = async () => (await stream.put(rows).catch((e: unknown) => e)) as RawStreamError;

  it('ServiceUnavailableException (after the SDK retried it) is a transient RawStreamError naming it', async () => {
    firehoseMock.on(PutRecordBatchCommand).rejects(new ServiceUnavailableException({ message: 'busy', $metadata: { httpStatusCode: 503, attempts: 3 } }));
    const err = await failure();
    expect(err).toBeInstanceOf(RawStreamError);
    expect(err.message).toMatch(/ServiceUnavailableException/);
    expect(isTransient(err)).toBe(true);
  });

  it('a missing stream (ResourceNotFoundException) or a rejected argument is permanent', async () => {
    firehoseMock.on(PutRecordBatchCommand).rejects(new ResourceNotFoundException({ message: 'no such stream', $metadata: { httpStatusCode: 400 } }));
    expect(isTransient(await failure())).toBe(false);
    firehoseMock.on(PutRecordBatchCommand).rejects(new InvalidArgumentException({ message: 'bad', $metadata: { httpStatusCode: 400 } }));
    expect(isTransient(await failure())).toBe(false);
  });

  it('a call cut off at its deadline is transient', async () => {
    firehoseMock.on(PutRecordBatchCommand).rejects(deadline());
    expect(isTransient(await failure())).toBe(true);
  });

  it('resends only the records the stream rejected, and the NDJSON lines they carry', async () => {
    const many = Array.from({ length: 600 }, (_, i) => ({ name: `e${i}` })); // two records: 500 and 100 lines
    firehoseMock
      .on(PutRecordBatchCommand)
      .resolvesOnce({ FailedPutCount: 1, RequestResponses: [{ RecordId: 'r1' }, { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'busy' }] })
      .resolves({ FailedPutCount: 0, RequestResponses: [{ RecordId: 'r2' }] });
    await stream.put(many);
    const sent = firehoseMock
      .commandCalls(PutRecordBatchCommand)
      .map((c) => c.args[0].input.Records!.map((r) => Buffer.from(r.Data!).toString().split('\n').filter(Boolean).length));
    expect(sent).toEqual([[500, 100], [100]]);
  });
});

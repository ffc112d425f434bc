/**
 * `npm run redrive -- --bucket <RawBucketName> --events-stream <EventsStreamName> --identities-stream <IdentitiesStreamName>`
 * (a deployed stack; the names are its outputs), or `npm run redrive -- --data-dir <dir>` (`npm start`'s
 * data directory; default TALLY_DATA_DIR, else ./.tally): re-sends the records Firehose could not
 * deliver (errors/ of the raw bucket) through the raw streams, and reports what it re-sent and what it
 * left (docs/deploy.md, "Undelivered records"). Exit code 0 when nothing is left under errors/, 1 when
 * lines are left or a stream refused rows, 2 on bad usage.
 */
import './node-version';
import { S3Client } from '@aws-sdk/client-s3';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { LOCAL_AWS } from '../lambdas/local/dynalite';
import { startLocalFirehose } from '../lambdas/local/firehose-endpoint';
import { LOCAL_STREAMS, localFirehoseTargets } from '../lambdas/local/wiring';
import { FirehoseRawStream } from '../lambdas/store/firehose-raw-stream';
import { firehoseClient } from '../lambdas/store/firehose-client';
import { localErrorObjects, s3ErrorObjects } from './redrive/objects';
import { runRedrive, type RedriveOptions } from './redrive/run';
import { UsageError, usageExitCode } from './usage';

const USAGE = `Usage: npm run redrive -- --bucket <RawBucketName> --events-stream <EventsStreamName> --identities-stream <IdentitiesStreamName>
       npm run redrive -- [--data-dir <dir>]
  A deployed stack: the three names are the stack's outputs (AWS credentials and region as for the AWS CLI).
  Locally: npm start's data directory (--data-dir, else TALLY_DATA_DIR, else ./.tally); npm start may be running.`;

/** The options of a run, and what to close after it (the local Firehose stand-in and the clients). */
export async function redriveOptionsFrom(argv: string[], env: NodeJS.ProcessEnv): Promise<RedriveOptions & { close(): Promise<void> }> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      bucket: { type: 'string' },
      'events-stream': { type: 'string' },
      'identities-stream': { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  if (positionals.length) throw new UsageError(`Unexpected argument ${JSON.stringify(positionals[0])}: every value goes with its option.`);
  const aws = [values.bucket, values['events-stream'], values['identities-stream']];
  if (aws.some(Boolean)) {
    if (!aws.every(Boolean))
      throw new UsageError(
        '--bucket, --events-stream and --identities-stream go together (the RawBucketName, EventsStreamName and IdentitiesStreamName outputs).',
      );
    if (values['data-dir']) throw new UsageError('Choose a deployed stack (--bucket and the streams) or a local data directory (--data-dir), not both.');
    const s3 = new S3Client({});
    const firehose = firehoseClient();
    return {
      objects: s3ErrorObjects(s3, values.bucket!),
      streams: { events: new FirehoseRawStream(firehose, values['events-stream']!), identities: new FirehoseRawStream(firehose, values['identities-stream']!) },
      describeStreams: `Firehose streams ${values['events-stream']} and ${values['identities-stream']}`,
      close: async () => {
        s3.destroy();
        firehose.destroy();
      },
    };
  }
  const dataDir = resolve(values['data-dir'] ?? env.TALLY_DATA_DIR ?? '.tally');
  // The local stand-in of the streams over the same directory, as npm start runs it: it appends its own files, so both may run at once.
  const local = await startLocalFirehose(localFirehoseTargets(dataDir));
  const firehose = firehoseClient({ ...LOCAL_AWS, endpoint: local.endpoint });
  return {
    objects: localErrorObjects(dataDir),
    streams: { events: new FirehoseRawStream(firehose, LOCAL_STREAMS.events), identities: new FirehoseRawStream(firehose, LOCAL_STREAMS.identities) },
    describeStreams: `the local Firehose stand-in over ${dataDir}`,
    close: async () => {
      firehose.destroy();
      await local.close();
    },
  };
}

async function main() {
  let options: Awaited<ReturnType<typeof redriveOptionsFrom>>;
  try {
    options = await redriveOptionsFrom(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(usageExitCode(err));
  }
  try {
    const summary = await runRedrive(options);
    const left = Object.values(summary.left).some((n) => n);
    process.exitCode = left || summary.failed ? 1 : 0;
  } catch (err) {
    console.error(`Redrive stopped: ${(err as Error).name}: ${(err as Error).message}. Objects already settled stay settled; run again to continue.`);
    process.exitCode = 1;
  } finally {
    await options.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();

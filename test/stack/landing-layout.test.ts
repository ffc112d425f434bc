/**
 * The landing layout has no record-dependent key (docs/decisions/columnar-events.md, "Landing"): taken
 * from the synthesized template, each delivery stream's S3 prefix uses Firehose's timestamp namespace
 * only, with no dynamic partitioning and no processors. Firehose's dynamic partitioning limit (500
 * active partitions per stream, past which "the rest of the records ... are delivered to the specified
 * S3 error bucket prefix") applies to keys computed from the records; here no key is, so 2,000 projects
 * sending events for 30 different days in one hour land under one prefix per stream, and nothing goes
 * to errors/.
 *
 * The prefix is evaluated as Firehose documents its namespaces ("Custom prefixes for Amazon S3
 * objects", https://docs.aws.amazon.com/firehose/latest/dev/s3-prefixes.html): !{timestamp:<Java
 * DateTimeFormatter pattern>} is the arrival time of the object's oldest record in UTC,
 * !{firehose:...} only in the error prefix, !{partitionKeyFromQuery:...} and !{partitionKeyFromLambda:...}
 * from each record, which must not appear.
 */
import { describe, expect, it } from 'vitest';
import { landingHour } from '../../lambdas/contract/landing';
import { synthStack } from './synth';

const s = synthStack();
const streams = Object.values(s.template.findResources('AWS::KinesisFirehose::DeliveryStream')).map(
  (r) => r.Properties.ExtendedS3DestinationConfiguration as Record<string, unknown> & { Prefix: string; ErrorOutputPrefix: string },
);

/** Every !{namespace:argument} of a prefix. */
const namespaces = (prefix: string) => [...prefix.matchAll(/!\{([A-Za-z]+):([^}]*)\}/g)].map((m) => ({ namespace: m[1]!, argument: m[2]! }));

/** Firehose's key for an object whose oldest record arrived at `arrivalMs`: the timestamp namespace; any other is refused here. */
function keyOf(prefix: string, record: { project_id: string; timestamp: string }, arrivalMs: number): string {
  return prefix.replace(/!\{([A-Za-z]+):([^}]*)\}/g, (_, namespace: string, pattern: string) => {
    if (namespace !== 'timestamp') throw new Error(`namespace ${namespace} computes the key from the record ${JSON.stringify(record)}`);
    expect(pattern).toBe('yyyy-MM-dd-HH');
    return landingHour(arrivalMs);
  });
}

describe('landing by arrival', () => {
  it('both streams: the prefix uses the timestamp namespace only, no dynamic partitioning, no processors', () => {
    expect(streams).toHaveLength(2);
    for (const dest of streams) {
      expect(namespaces(dest.Prefix)).toEqual([{ namespace: 'timestamp', argument: 'yyyy-MM-dd-HH' }]);
      expect(dest.DynamicPartitioningConfiguration).toBeUndefined();
      expect(dest.ProcessingConfiguration).toBeUndefined();
      // The error prefix needs the error-output-type namespace (Firehose requires one in it when the prefix uses expressions).
      expect(namespaces(dest.ErrorOutputPrefix).map((n) => n.namespace)).toEqual(['firehose', 'timestamp']);
    }
  });

  it('2,000 projects sending events for 30 different days in one hour: one landing prefix per stream, none in errors/', () => {
    const arrival = Date.parse('2026-03-20T10:00:00.000Z');
    for (const dest of streams) {
      const keys = new Set<string>();
      for (let p = 0; p < 2000; p++) {
        for (let d = 0; d < 30; d++) {
          const timestamp = new Date(arrival - d * 86_400_000).toISOString();
          keys.add(keyOf(dest.Prefix, { project_id: `proj-${p}`, timestamp }, arrival + ((p * 30 + d) % 3600) * 1000));
        }
      }
      expect([...keys]).toEqual([dest.Prefix.replace('!{timestamp:yyyy-MM-dd-HH}', '2026-03-20-10')]);
      expect([...keys][0]).toMatch(/^landing\/(events|identities)\/arrival_hour=2026-03-20-10\/$/);
    }
  });

  it('the key evaluation refuses a record-dependent namespace (the check above could not pass with one)', () => {
    expect(() => keyOf('x/project_id=!{partitionKeyFromQuery:project_id}/', { project_id: 'p', timestamp: '2026-03-20T00:00:00Z' }, 0)).toThrow(
      /partitionKeyFromQuery computes the key from the record/,
    );
  });
});

/**
 * Deterministic bucketing (spec): the first 8 bytes of SHA-256("<experiment_uuid>:<id>") as a
 * big-endian unsigned 64-bit integer, modulo the number of variants. The server and client SDKs
 * import this one module, so on-device and server assignments agree for the same ID. It uses
 * @noble/hashes rather than node:crypto so that it runs unchanged in browsers and React Native.
 */
import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

export function bucketOf(experimentId: string, id: string): bigint {
  const digest = sha256(encoder.encode(`${experimentId}:${id}`));
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigUint64(0, false);
}

export function variantFor<T extends string>(experimentId: string, id: string, variants: readonly T[]): T {
  if (variants.length === 0) throw new RangeError('An experiment needs at least one variant');
  return variants[Number(bucketOf(experimentId, id) % BigInt(variants.length))]!;
}

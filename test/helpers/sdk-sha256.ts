/**
 * The hash constructor the AWS SDK's SignatureV4 wants, on node:crypto's SHA-256 (the SDK's Node.js
 * default is the same): the signer tests sign with the SDK's own SignatureV4 to check ours against it.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

export class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | Uint8Array) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
  }
  update(data: Uint8Array) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

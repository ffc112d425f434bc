/**
 * AWS Signature Version 4 for the JSON protocol's requests (a POST with a body, no query string), as
 * the AWS SDK's SignatureV4 (@smithy/signature-v4) computes it: test/aws-client/sigv4.test.ts checks
 * them against each other byte for byte. Like the SDK, every header passed in is signed, plus the ones
 * signing adds: x-amz-date, x-amz-security-token (with temporary credentials) and x-amz-content-sha256
 * (the SDK's DynamoDB and Firehose clients send and sign it too).
 */
import { createHash, createHmac } from 'node:crypto';
import type { Credentials } from './credentials';

export interface SignableRequest {
  method: string;
  /** The URL path, e.g. '/'. */
  path: string;
  /** Header names in lower case; host included. All of them are signed. */
  headers: Record<string, string>;
  body: string | Uint8Array;
}

export interface SigningParams {
  credentials: Credentials;
  region: string;
  service: string;
  date: Date;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** 20261122T170321Z and 20261122. */
function formatDate(date: Date): { longDate: string; shortDate: string } {
  const longDate = date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return { longDate, shortDate: longDate.slice(0, 8) };
}

/** The derived key changes once a day per region and service: kept for the last one asked. */
let cachedKey: { id: string; key: Buffer } | undefined;
function signingKey(secret: string, shortDate: string, region: string, service: string): Buffer {
  const id = `${shortDate}\n${region}\n${service}\n${secret}`;
  if (cachedKey?.id !== id) {
    const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, shortDate), region), service), 'aws4_request');
    cachedKey = { id, key };
  }
  return cachedKey.key;
}

/** RFC 3986 escaping, as the SDK's escapeUri. */
const escapeUri = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The SDK's canonical path (uriEscapePath: true): dot segments resolved, empty segments dropped, escaped. */
export function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

/** The request's headers with the signing ones added: x-amz-date, x-amz-security-token, x-amz-content-sha256, authorization. */
export function signRequest(request: SignableRequest, { credentials, region, service, date }: SigningParams): Record<string, string> {
  const { longDate, shortDate } = formatDate(date);
  const payloadHash = sha256Hex(request.body);
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(request.headers)) headers[name.toLowerCase()] = v;
  headers['x-amz-date'] = longDate;
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  headers['x-amz-content-sha256'] = payloadHash;

  const names = Object.keys(headers).sort();
  const value = (n: string) =>
    (headers[n] ?? '')
      .replace(/[\r\n]/g, ' ')
      .replace(/[ \t]+/g, ' ')
      .replace(/^ | $/g, '');
  const canonicalHeaders = names.map((n) => `${n}:${value(n)}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [request.method, canonicalPath(request.path), '', canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${shortDate}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, longDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, shortDate, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `${ALGORITHM} Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/**
 * The request headers SDKs send besides Authorization: the spec's metadata headers and the key
 * headers. The spec names them X-SVC-*; Tally reads them under its own prefix (X-Tally-) and under the
 * prefix of the existing open-source SDKs (X-MGM-), so those SDKs work unchanged. The local server,
 * the AWS authorizer, the ingestion handler and the CORS preflight all take the names from here.
 */
import { bearerToken } from '../domain/api-key';

/** Looks a request header up by name, case-insensitively. */
export type HeaderLookup = (name: string) => string | undefined;

/** In order of precedence: when both spellings of a header are sent, the X-Tally- one wins. */
export const HEADER_PREFIXES = ['X-Tally-', 'X-MGM-'] as const;

/** The spec's metadata headers, by what they carry; each is sent as <prefix><name>. */
export const METADATA_HEADERS = {
  sdk: 'SDK',
  sdkVersion: 'SDK-Version',
  platform: 'Platform',
  platformVersion: 'Platform-Version',
  bundleId: 'Bundle-ID',
} as const;
export type MetadataField = keyof typeof METADATA_HEADERS;

/**
 * Headers that carry the project key where Authorization is absent (an extension of the spec: the
 * Swift and Flutter SDKs send X-MGM-Key: <key>). In order of precedence.
 */
export const KEY_HEADERS = HEADER_PREFIXES.map((prefix) => `${prefix}Key`);

/** Every header name a browser SDK may send to a public route: what a preflight allows at least. */
export const CLIENT_HEADER_NAMES: readonly string[] = [
  'Authorization',
  'Content-Type',
  'Content-Encoding',
  ...KEY_HEADERS,
  ...HEADER_PREFIXES.flatMap((prefix) => Object.values(METADATA_HEADERS).map((name) => `${prefix}${name}`)),
];

/** The first non-empty value among the names, in order. An empty header counts as not sent. */
function firstPresent(lookup: HeaderLookup, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = lookup(name)?.trim();
    if (value) return value;
  }
  return undefined;
}

/** A metadata header under either prefix (header names compare case-insensitively: Bundle-ID = Bundle-Id). */
export function metadataHeader(lookup: HeaderLookup, field: MetadataField): string | undefined {
  return firstPresent(
    lookup,
    HEADER_PREFIXES.map((prefix) => `${prefix}${METADATA_HEADERS[field]}`),
  );
}

/**
 * The project key a request presents: the bearer token of Authorization; only when Authorization is
 * absent (or empty), the value of X-Tally-Key, else X-MGM-Key. A malformed Authorization is not
 * rescued by a key header: it presents no key (401).
 */
export function presentedApiKey(lookup: HeaderLookup): string | undefined {
  const authorization = lookup('authorization');
  if (authorization?.trim()) return bearerToken(authorization) ?? undefined;
  return firstPresent(lookup, KEY_HEADERS);
}

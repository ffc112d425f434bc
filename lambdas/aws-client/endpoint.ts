/**
 * Where a service's requests go, as the AWS SDK resolves it for the standard partitions: an explicit
 * endpoint, else AWS_ENDPOINT_URL_<SERVICE> or AWS_ENDPOINT_URL (the SDK honours both; the local
 * stack and tests may use them), else the regional endpoint. No FIPS or dual-stack endpoints.
 */
import type { Env } from './credentials';

export interface EndpointOptions {
  endpoint?: string;
  region?: string;
}

export interface ResolvedEndpoint {
  url: URL;
  /** The signing region. */
  region: string;
}

/** The region: the option, else AWS_REGION (Lambda sets it), else AWS_DEFAULT_REGION. */
export function resolveRegion(region: string | undefined, env: Env = process.env): string {
  const found = region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!found) throw new Error('AWS region missing: set AWS_REGION (Lambda sets it) or AWS_DEFAULT_REGION, or pass region to the client');
  return found;
}

/** `service` is the endpoint prefix (dynamodb, firehose); its variable is AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_FIREHOSE. */
export function resolveEndpoint(service: string, options: EndpointOptions, env: Env = process.env): ResolvedEndpoint {
  const region = resolveRegion(options.region, env);
  const configured = options.endpoint ?? env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`] ?? env.AWS_ENDPOINT_URL;
  const url = configured ? parseEndpoint(configured) : new URL(`https://${service}.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`);
  return { url, region };
}

function parseEndpoint(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`AWS endpoint ${JSON.stringify(text)} is not a URL: give one like https://dynamodb.eu-west-1.amazonaws.com or http://127.0.0.1:8000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`AWS endpoint ${JSON.stringify(text)}: only http and https are supported`);
  return url;
}

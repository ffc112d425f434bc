/**
 * Which IP and location a request is attributed to. The client never chooses: on AWS it is API
 * Gateway's source IP; behind Tally's own CloudFront distribution (proven by the secret origin
 * header the authorizer checks) CloudFront's viewer headers, which AWS maintains, are used instead.
 */
import type { Geo, GeoLookup } from './geo';

export interface GeoSource {
  sourceIp: string | undefined;
  /** Set by the authorizer only when the request carried the distribution's secret origin header. */
  viaCloudFront: boolean;
  header: (name: string) => string | undefined;
}

export function requestGeo(source: GeoSource, lookup: GeoLookup): Geo {
  if (source.viaCloudFront) {
    const country = source.header('cloudfront-viewer-country');
    if (country) {
      return {
        country: country.toUpperCase(),
        region: decoded(source.header('cloudfront-viewer-country-region-name')),
        city: decoded(source.header('cloudfront-viewer-city')),
      };
    }
    const viewer = viewerIp(source.header('cloudfront-viewer-address'));
    if (viewer) return lookup.lookup(viewer);
  }
  return lookup.lookup(source.sourceIp);
}

/** CloudFront-Viewer-Address is "ip:port" (IPv6 without brackets). */
export function viewerIp(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const i = address.lastIndexOf(':');
  return i > 0 ? address.slice(0, i) : undefined;
}

function decoded(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

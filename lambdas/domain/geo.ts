/** Where a request came from, derived on the server from its IP (never from the client's fields). */
export interface Geo {
  country: string | null;
  region: string | null;
  city: string | null;
}

export const UNKNOWN_GEO: Geo = Object.freeze({ country: null, region: null, city: null });

export interface GeoLookup {
  lookup(ip: string | undefined): Geo;
}

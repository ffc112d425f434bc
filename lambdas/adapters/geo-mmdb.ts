/**
 * Geolocation from a MaxMind-format City database (GeoLite2-City or GeoIP2-City), read with the
 * maintained `maxmind` reader. The file is read once per process; a lookup is a memory walk
 * (well under a microsecond), and the handler does one per request, not per event.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Reader, type CityResponse } from 'maxmind';
import { UNKNOWN_GEO, type Geo, type GeoLookup } from '../domain/geo';

export class MmdbGeoLookup implements GeoLookup {
  private readonly reader: Reader<CityResponse>;

  constructor(path: string) {
    this.reader = new Reader<CityResponse>(readFileSync(path));
  }

  lookup(ip: string | undefined): Geo {
    if (!ip || isIP(ip) === 0) return UNKNOWN_GEO;
    let found: CityResponse | null;
    try {
      found = this.reader.get(ip);
    } catch {
      return UNKNOWN_GEO;
    }
    if (!found) return UNKNOWN_GEO;
    return {
      country: found.country?.iso_code ?? found.registered_country?.iso_code ?? null,
      region: found.subdivisions?.[0]?.names?.en ?? null,
      city: found.city?.names?.en ?? null,
    };
  }
}

export const NO_GEO: GeoLookup = { lookup: () => UNKNOWN_GEO };

/** The lookup for a configured database path, or none (every location null) when unset. */
export function geoLookupFor(path: string | undefined): GeoLookup {
  return path ? new MmdbGeoLookup(path) : NO_GEO;
}

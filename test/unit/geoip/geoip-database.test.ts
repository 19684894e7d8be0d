import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledGeoIpDatabasePath, openGeoIpDatabase } from '../../../src/geoip/geoip-database';
import { writeMmdb } from '../../helpers/mmdb-writer';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'geoip-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function databaseFile(name: string, content: Buffer | string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe('GeoIP database', () => {
  it('reads an injected database in the ip-location-db shape: country and region', () => {
    const geoip = openGeoIpDatabase(
      databaseFile(
        'city.mmdb',
        writeMmdb([
          { cidr: '127.0.0.0/8', data: { country_code: 'de', state1: 'Berlin', city: 'Berlin' } },
          { cidr: '10.1.2.0/24', data: { country_code: 'FR' } },
        ]),
      ),
    );
    expect(geoip.lookup('127.0.0.1')).toEqual({ country: 'DE', region: 'Berlin' });
    expect(geoip.lookup('::ffff:127.0.0.9')).toEqual({ country: 'DE', region: 'Berlin' });
    expect(geoip.lookup('10.1.2.3')).toEqual({ country: 'FR' });
    expect(geoip.lookup('10.1.3.3')).toBeUndefined();
    expect(geoip.lookup('::1')).toBeUndefined();
    expect(geoip.lookup('not an ip')).toBeUndefined();
    expect(geoip.description).toMatch(/^Test-GeoIP \(\d{4}-\d{2}-\d{2}\)$/);
  });

  it('reads MaxMind GeoIP2 records (country.iso_code, subdivisions)', () => {
    const geoip = openGeoIpDatabase(
      databaseFile(
        'maxmind.mmdb',
        writeMmdb([
          {
            cidr: '127.0.0.0/8',
            data: {
              country: { iso_code: 'US' },
              subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }],
            },
          },
        ]),
      ),
    );
    expect(geoip.lookup('127.0.0.1')).toEqual({ country: 'US', region: 'California' });
  });

  it('refuses a file that is not an MMDB database, naming it', () => {
    const file = databaseFile('broken.mmdb', 'not a database');
    expect(() => openGeoIpDatabase(file)).toThrow(new RegExp(`GeoIP database ${file} cannot be read`));
    expect(() => openGeoIpDatabase(join(dir, 'missing.mmdb'))).toThrow(/missing\.mmdb cannot be read/);
  });

  it('ships DB-IP country data in the pinned package, IPv4 and IPv6, with no record for private ranges', () => {
    const geoip = openGeoIpDatabase(bundledGeoIpDatabasePath());
    expect(geoip.description).toMatch(/\(\d{4}-\d{2}-\d{2}\)$/);
    // Well-known, long-stable allocations: a public resolver's address is somewhere; private ones are nowhere.
    expect(geoip.lookup('8.8.8.8')?.country).toMatch(/^[A-Z]{2}$/);
    expect(geoip.lookup('2001:4860:4860::8888')?.country).toMatch(/^[A-Z]{2}$/);
    expect(geoip.lookup('127.0.0.1')).toBeUndefined();
    expect(geoip.lookup('192.168.1.1')).toBeUndefined();
  });
});

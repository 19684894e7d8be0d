import type { MeteringDialect } from './metering.repository';

/** SQLite's forms of the metering statements: a write transaction locks the whole file, and json_each unpacks the ledger rows. */
export const SQLITE_METERING: MeteringDialect = {
  forUpdate: '',
  insertIgnore: 'INSERT OR IGNORE',
  ledgerRows: {
    value: (i) => `json_extract(j.value, '$[${i}]')`,
    from: 'json_each(?) AS j',
    order: 'j.key',
  },
};

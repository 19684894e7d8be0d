import type { MeteringDialect } from './metering.repository';

/** MySQL/MariaDB's forms of the metering statements: row locks by FOR UPDATE, and JSON_TABLE unpacks the ledger rows. */
export const MYSQL_METERING: MeteringDialect = {
  forUpdate: ' FOR UPDATE',
  insertIgnore: 'INSERT IGNORE',
  ledgerRows: {
    value: (i) => `r.c${i}`,
    from:
      "JSON_TABLE(?, '$[*]' COLUMNS (n FOR ORDINALITY, c0 INT PATH '$[0]', c1 INT PATH '$[1]', " +
      "c2 INT PATH '$[2]', c3 VARCHAR(200) PATH '$[3]', c4 VARCHAR(64) PATH '$[4]')) AS r",
    order: 'r.n',
  },
};

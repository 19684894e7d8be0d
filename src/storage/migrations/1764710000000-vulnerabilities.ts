import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Vulnerability data imported offline (issue 33 §2) and the index the reverse query reads (§3):
 *
 * - vulnerabilities: one row per NVD CVE or OSV record (id, source, summary, CVSS severity, score
 *   in tenths, vector, published/modified, references and aliases as JSON lists);
 * - vulnerability_aliases: every id a record answers to (its own, and its aliases), so a CVE id
 *   finds the GHSA records that alias it;
 * - vulnerability_products: what a record affects, per product key (cpe:vendor:product or
 *   osv:ecosystem:name) with the ranges as JSON;
 * - idx_site_technologies_slug_version on site_technologies (slug, version, site_id): the sites
 *   running one version of a technology, in site id order (the reverse query's pages).
 */
export class Vulnerabilities1764710000000 implements MigrationInterface {
  name = 'Vulnerabilities1764710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'vulnerabilities',
        columns: [
          { name: 'id', type: 'varchar', length: '80', isPrimary: true },
          { name: 'source', type: 'varchar', length: '8' },
          { name: 'summary', type: 'text' },
          { name: 'severity', type: 'varchar', length: '10', isNullable: true },
          { name: 'score_tenths', type: 'int', isNullable: true },
          { name: 'vector', type: 'varchar', length: '200', isNullable: true },
          { name: 'published_at', type: 'datetime', precision: 3, isNullable: true },
          { name: 'modified_at', type: 'datetime', precision: 3 },
          { name: 'refs', type: 'text' },
          { name: 'aliases', type: 'text' },
          { name: 'imported_at', type: 'datetime', precision: 3 },
        ],
        indices: [
          new TableIndex({ name: 'idx_vulnerabilities_source', columnNames: ['source', 'modified_at'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'vulnerability_aliases',
        columns: [
          { name: 'alias', type: 'varchar', length: '80', isPrimary: true },
          { name: 'vulnerability_id', type: 'varchar', length: '80', isPrimary: true },
        ],
        indices: [
          new TableIndex({ name: 'idx_vulnerability_aliases_id', columnNames: ['vulnerability_id'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'vulnerability_products',
        columns: [
          { name: 'vulnerability_id', type: 'varchar', length: '80', isPrimary: true },
          { name: 'seq', type: 'int', isPrimary: true },
          { name: 'product', type: 'varchar', length: '200' },
          { name: 'spec', type: 'text' },
        ],
        indices: [
          new TableIndex({
            name: 'idx_vulnerability_products_product',
            columnNames: ['product', 'vulnerability_id'],
          }),
        ],
      }),
    );
    await q.createIndex(
      'site_technologies',
      new TableIndex({
        name: 'idx_site_technologies_slug_version',
        columnNames: ['slug', 'version', 'site_id'],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('site_technologies', 'idx_site_technologies_slug_version');
    await q.dropTable('vulnerability_products');
    await q.dropTable('vulnerability_aliases');
    await q.dropTable('vulnerabilities');
  }
}

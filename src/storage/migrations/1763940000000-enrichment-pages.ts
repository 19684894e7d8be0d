import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * site_enrichments.pages: how many pages the stored record was read from, so a one-page analysis
 * does not replace the richer record of a recent crawl (contact, imprint and team pages).
 */
export class EnrichmentPages1763940000000 implements MigrationInterface {
  name = 'EnrichmentPages1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('site_enrichments', new TableColumn({ name: 'pages', type: 'int', default: 1 }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('site_enrichments', 'pages');
  }
}

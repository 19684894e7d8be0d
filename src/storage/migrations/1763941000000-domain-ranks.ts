import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * domain_ranks: the ranks of imported domain lists (Tranco, Majestic, a plain ranked list), one
 * row per registrable domain. Kept apart from `sites`, which holds what the service analysed: an
 * imported domain becomes a site when it is first analysed, and takes its rank along (and every
 * re-import updates the ranks of the sites that exist).
 */
export class DomainRanks1763941000000 implements MigrationInterface {
  name = 'DomainRanks1763941000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'domain_ranks',
        columns: [
          { name: 'domain', type: 'varchar', length: '253', isPrimary: true },
          { name: 'rank', type: 'int' },
          { name: 'source', type: 'varchar', length: '20' },
          { name: 'updated_at', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'idx_domain_ranks_rank', columnNames: ['rank'] })],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('domain_ranks');
  }
}

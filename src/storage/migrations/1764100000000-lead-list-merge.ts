import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * Lead lists, faster and with merged subdomains:
 * - lead_list_sites gets the merged technology data of subdomains=merge rows (version,
 *   first_detected, last_detected; null otherwise). Written faster: its (list_id, site_id) index
 *   goes (exclude and base lists read a list's sites once with IN / NOT IN, counts scan the list's
 *   key range), and on SQLite the table is rebuilt WITHOUT ROWID, so its primary key (list_id,
 *   slug, site_id) is the table itself: one B-tree per row instead of three (InnoDB already
 *   clusters on the primary key: two before, one now).
 * - lead_list_candidates: a calculation's scratch rows for subdomains=merge (every matching
 *   technology and site, before one site per domain is kept); emptied when the calculation ends.
 */
export class LeadListMerge1764100000000 implements MigrationInterface {
  name = 'LeadListMerge1764100000000';

  async up(q: QueryRunner): Promise<void> {
    const sqlite = q.connection.options.type === 'better-sqlite3';
    if (sqlite) {
      await q.query(
        `CREATE TABLE "lead_list_sites_new" ("list_id" varchar(40) NOT NULL, "slug" varchar(120) NOT NULL,
           "site_id" int NOT NULL, "version" varchar(60), "first_detected" datetime, "last_detected" datetime,
           CONSTRAINT "FK_9b99e14621ea92168adfc0fba50" FOREIGN KEY ("list_id") REFERENCES "lead_lists" ("id") ON DELETE CASCADE,
           PRIMARY KEY ("list_id", "slug", "site_id")) WITHOUT ROWID`,
      );
      await q.query(
        'INSERT INTO "lead_list_sites_new" ("list_id", "slug", "site_id") SELECT "list_id", "slug", "site_id" FROM "lead_list_sites"',
      );
      await q.query('DROP TABLE "lead_list_sites"');
      await q.query('ALTER TABLE "lead_list_sites_new" RENAME TO "lead_list_sites"');
      await q.query(
        `CREATE TABLE "lead_list_candidates" ("list_id" varchar(40) NOT NULL, "slug" varchar(120) NOT NULL,
           "site_id" int NOT NULL, PRIMARY KEY ("list_id", "slug", "site_id")) WITHOUT ROWID`,
      );
      return;
    }
    await q.dropIndex('lead_list_sites', 'idx_lead_list_sites_site');
    await q.addColumns('lead_list_sites', [
      new TableColumn({ name: 'version', type: 'varchar', length: '60', isNullable: true }),
      new TableColumn({ name: 'first_detected', type: 'datetime', precision: 3, isNullable: true }),
      new TableColumn({ name: 'last_detected', type: 'datetime', precision: 3, isNullable: true }),
    ]);
    await q.createTable(
      new Table({
        name: 'lead_list_candidates',
        columns: [
          { name: 'list_id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'slug', type: 'varchar', length: '120', isPrimary: true },
          { name: 'site_id', type: 'int', isPrimary: true },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('lead_list_candidates');
    if (q.connection.options.type === 'better-sqlite3') {
      await q.query(
        `CREATE TABLE "lead_list_sites_old" ("list_id" varchar(40) NOT NULL, "slug" varchar(120) NOT NULL,
           "site_id" int NOT NULL,
           CONSTRAINT "FK_9b99e14621ea92168adfc0fba50" FOREIGN KEY ("list_id") REFERENCES "lead_lists" ("id") ON DELETE CASCADE,
           PRIMARY KEY ("list_id", "slug", "site_id"))`,
      );
      await q.query(
        'INSERT INTO "lead_list_sites_old" ("list_id", "slug", "site_id") SELECT "list_id", "slug", "site_id" FROM "lead_list_sites"',
      );
      await q.query('DROP TABLE "lead_list_sites"');
      await q.query('ALTER TABLE "lead_list_sites_old" RENAME TO "lead_list_sites"');
      await q.query('CREATE INDEX "idx_lead_list_sites_site" ON "lead_list_sites" ("list_id", "site_id")');
      return;
    }
    for (const column of ['last_detected', 'first_detected', 'version'])
      await q.dropColumn('lead_list_sites', column);
    await q.query('CREATE INDEX idx_lead_list_sites_site ON lead_list_sites (list_id, site_id)');
  }
}

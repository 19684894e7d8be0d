import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The claim of a lane reads only the queued jobs of its own kinds (issue 35). A claim picks
 * `status = 'queued' AND kind IN (...) ORDER BY run_at, id`; on (status, run_at) alone it walked
 * every queued job of every kind to find its own, so with 10,000 imported crawls queued each claim
 * of the express and ordinary lanes read (and on MariaDB, FOR UPDATE, locked) all 10,000 crawl rows
 * to find none: 18-32 ms of database CPU per claim, several claims per finished job. On
 * (status, kind, run_at) a lane's claim reads its own kinds' rows in run_at order. It replaces
 * (status, run_at): every query of the job table that reads run_at names the kind too, and one
 * index fewer is one write fewer per enqueue and claim (SQLite's planner also kept choosing the
 * old one, which spares it a sort, however many rows of other kinds that walks).
 */
export class JobClaimByKind1764610000000 implements MigrationInterface {
  name = 'JobClaimByKind1764610000000';

  async up(q: QueryRunner): Promise<void> {
    await q.dropIndex('jobs', 'idx_jobs_claim');
    await q.createIndex(
      'jobs',
      new TableIndex({ name: 'idx_jobs_claim_kind', columnNames: ['status', 'kind', 'run_at'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('jobs', 'idx_jobs_claim_kind');
    await q.createIndex(
      'jobs',
      new TableIndex({ name: 'idx_jobs_claim', columnNames: ['status', 'run_at'] }),
    );
  }
}

import type { RawSql } from './raw-sql';

/** host_backoffs: until when (epoch ms) each host that answered 429/503 is left alone. */
export class HostBackoffRepository {
  private readonly upsert: string;

  constructor(
    private readonly sql: RawSql,
    dialect: 'sqlite' | 'mysql',
  ) {
    // A later time already recorded (another worker's longer Retry-After) is kept.
    this.upsert =
      dialect === 'sqlite'
        ? 'INSERT INTO host_backoffs (host, until_ms) VALUES (?, ?)' +
          ' ON CONFLICT(host) DO UPDATE SET until_ms = MAX(until_ms, excluded.until_ms)'
        : 'INSERT INTO host_backoffs (host, until_ms) VALUES (?, ?)' +
          ' ON DUPLICATE KEY UPDATE until_ms = GREATEST(until_ms, VALUES(until_ms))';
  }

  /** The recorded time for `host`, 0 when none. */
  async until(host: string): Promise<number> {
    const [row] = await this.sql.all<{ until_ms: number | string }>(
      'SELECT until_ms FROM host_backoffs WHERE host = ?',
      [host],
    );
    return row ? Number(row.until_ms) : 0;
  }

  async backOff(host: string, untilMs: number): Promise<void> {
    await this.sql.run(this.upsert, [host, Math.round(untilMs)]);
  }

  /** Deletes the rows whose time has passed; how many. */
  purgeBefore(nowMs: number): Promise<number> {
    return this.sql.run('DELETE FROM host_backoffs WHERE until_ms <= ?', [Math.round(nowMs)]);
  }
}

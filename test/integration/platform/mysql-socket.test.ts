import { mysqlConnectionOf } from '../../../ormconfig';
import { Database } from '../../../src/storage/database';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

describe('DATABASE_URL ?socket= (MariaDB on the same host through its Unix socket)', () => {
  it('passes the socket to mysql2 and leaves the rest of the URL as it was', () => {
    expect(
      mysqlConnectionOf('mysql://app:s%40cret@db.internal:3307/tis?socket=/run/mysqld/mysqld.sock'),
    ).toEqual({ url: 'mysql://app:s%40cret@db.internal:3307/tis', socketPath: '/run/mysqld/mysqld.sock' });
    expect(mysqlConnectionOf('mariadb://root@127.0.0.1:3306/test')).toEqual({
      url: 'mysql://root@127.0.0.1:3306/test',
    });
  });

  const onMariaDb =
    process.env.TEST_DATABASE_URL && !process.env.TEST_DATABASE_URL.startsWith('sqlite:')
      ? describe
      : describe.skip;
  onMariaDb('against the server of the MariaDB pass', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(() => database.drop());

    it('migrates and answers through the socket, not TCP', async () => {
      const overTcp = await Database.open(database.url, {});
      const [{ socket }] = (await overTcp.query('SELECT @@socket AS socket')) as { socket: string }[];
      await overTcp.close();
      const db = await Database.open(`${database.url}?socket=${encodeURIComponent(socket)}`, {});
      try {
        const [session] = (await db.query(
          'SELECT host FROM information_schema.processlist WHERE id = CONNECTION_ID()',
        )) as { host: string }[];
        // A TCP session's host is "address:port"; a Unix socket session's is "localhost".
        expect(session.host).toBe('localhost');
        const [{ n }] = (await db.query('SELECT COUNT(*) AS n FROM accounts')) as { n: number | string }[];
        expect(Number(n)).toBe(0);
      } finally {
        await db.close();
      }
    });
  });
});

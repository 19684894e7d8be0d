import { PlatformAccounts1763830000000 } from './1763830000000-platform-accounts';

/** Every migration, in order. One set runs on SQLite and MySQL/MariaDB. Append new ones here. */
export const MIGRATIONS = [PlatformAccounts1763830000000];

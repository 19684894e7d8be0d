import { Column, ColumnOptions } from 'typeorm';

/**
 * Column shapes that mean the same on SQLite and MySQL/MariaDB. Times keep milliseconds
 * (datetime(3) on MySQL; SQLite stores the same text), so leases and ordering are exact on both.
 */
export function TimeColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'datetime', precision: 3, ...options });
}

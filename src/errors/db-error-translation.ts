import { QueryFailedError } from 'typeorm';
import { AppError, ConflictError } from './app-error';

/**
 * Driver errors are translated once per dialect, so services see the same error whatever the
 * database: a duplicate key on MySQL (ER_DUP_ENTRY) and on SQLite (SQLITE_CONSTRAINT_UNIQUE or
 * _PRIMARYKEY) both become a ConflictError. Anything else passes through untouched.
 */
export function translateDriverError(error: unknown): unknown {
  if (error instanceof AppError || !(error instanceof QueryFailedError)) return error;
  const driver = (error as QueryFailedError & { driverError?: { code?: string } }).driverError;
  const code = driver?.code ?? '';
  if (
    code === 'ER_DUP_ENTRY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  ) {
    return new ConflictError('A record with the same key already exists');
  }
  return error;
}

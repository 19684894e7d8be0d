import type { EntityManager } from 'typeorm';
import { AccountEntity } from './entities';

/** Statements on accounts beyond TypeORM's plain find, insert and update. */
export class AccountRepository {
  /** Whether an account has this email, compared case-insensitively. */
  emailTaken(m: EntityManager, email: string): Promise<boolean> {
    return m
      .createQueryBuilder(AccountEntity, 'a')
      .where('LOWER(a.email) = :email', { email: email.toLowerCase() })
      .getExists();
  }
}

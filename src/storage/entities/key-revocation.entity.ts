import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** One revoked API key, in revocation order (the id): how processes learn of revocations they did not make. */
@Entity('key_revocations')
export class KeyRevocationEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'key_id', type: 'int' })
  keyId: number;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @TimeColumn({ name: 'revoked_at' })
  revokedAt: Date;
}

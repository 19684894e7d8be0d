import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** An API key, stored as its SHA-256 hash; the plaintext exists only in the creator's hands. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('idx_api_keys_account')
  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  /** Hex SHA-256 of the key; keys are 256-bit random, so an unsalted fast hash is safe here. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  /** The first characters of the key, shown to tell keys apart (not enough to use one). */
  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix: string;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;

  @TimeColumn({ name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}

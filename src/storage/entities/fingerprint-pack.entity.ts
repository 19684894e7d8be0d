import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** One fingerprint pack's content as loaded (its files gzipped): a row is never changed, only added. */
@Entity('fingerprint_packs')
export class FingerprintPackEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** `base` (the one pack an active set starts from) or `overlay`. */
  @Column({ type: 'varchar', length: 10 })
  role: string;

  /** The version the pack declares (pack.json), else `sha256:` and its content hash. */
  @Column({ type: 'varchar', length: 200 })
  version: string;

  @Column({ name: 'content_hash', type: 'varchar', length: 64 })
  contentHash: string;

  @Column({ type: 'int' })
  technologies: number;

  /** The files' size before compression. */
  @Column({ name: 'size_bytes', type: 'int' })
  sizeBytes: number;

  /** The pack's files (PackSource as JSON), gzipped. */
  @Column({ type: 'blob' })
  files: Buffer;

  @TimeColumn({ name: 'loaded_at' })
  loadedAt: Date;

  @Column({ name: 'loaded_by', type: 'varchar', length: 200 })
  loadedBy: string;
}

/** An active set ever used: its id and its packs in order (the base first). */
@Entity('fingerprint_sets')
export class FingerprintSetEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** The pack row ids in order, as JSON. */
  @Column({ type: 'text' })
  components: string;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;
}

/** One activation of a set; the newest row names the active set. */
@Entity('fingerprint_activations')
export class FingerprintActivationEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'set_id', type: 'varchar', length: 64 })
  setId: string;

  @TimeColumn({ name: 'activated_at' })
  activatedAt: Date;

  @Column({ name: 'activated_by', type: 'varchar', length: 200 })
  activatedBy: string;
}

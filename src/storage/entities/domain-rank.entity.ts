import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** The rank of a registrable domain in an imported ranked list (1 = most traffic). */
@Entity('domain_ranks')
export class DomainRankEntity {
  @PrimaryColumn({ type: 'varchar', length: 253 })
  domain: string;

  @Index('idx_domain_ranks_rank')
  @Column({ type: 'int' })
  rank: number;

  /** The list format it came from: tranco, majestic or plain. */
  @Column({ type: 'varchar', length: 20 })
  source: string;

  @TimeColumn({ name: 'updated_at' })
  updatedAt: Date;
}

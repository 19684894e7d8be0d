import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/**
 * A site's front page as the detection engine saw it at its last sampled analysis (the detection
 * input, bounded, gzipped JSON), kept so a fingerprint change can be re-evaluated on real pages
 * before it is switched on. One row per site, deleted with the site.
 */
@Entity('page_samples')
export class PageSampleEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  @Column({ type: 'text' })
  url: string;

  @TimeColumn({ name: 'captured_at' })
  capturedAt: Date;

  @Column({ type: 'blob' })
  data: Buffer;
}

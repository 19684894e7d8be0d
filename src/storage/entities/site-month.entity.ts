import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One site in one calendar month (UTC): the Lookup v1 history. */
@Entity('site_months')
export class SiteMonthEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  /** YYYY-MM (sorts chronologically; shown as MM-YYYY). */
  @PrimaryColumn({ type: 'varchar', length: 7 })
  month: string;

  /** Language tags seen that month, JSON array. */
  @Column({ type: 'text' })
  languages: string;

  /** Page views of the site the service recorded that month. */
  @Column({ type: 'int', default: 0 })
  hits: number;
}

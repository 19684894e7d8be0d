import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

@Entity('accounts')
export class AccountEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ type: 'varchar', length: 20 })
  /** A built-in plan or one of PLANS_FILE. */
  plan: string;

  /** Balance in credits; changed only together with a ledger row (CreditService). */
  @Column({ type: 'int', default: 0 })
  credits: number;

  /**
   * Callback signing secret. Kept retrievable because signing needs it (sha256(secret + body));
   * it is printed once at creation and never returned by any API. Stored sealed with AES-256-GCM
   * under SECRETS_KEY when one is set (see services/secret-vault.ts).
   */
  @Column({ name: 'signing_secret', type: 'varchar', length: 255, nullable: true })
  signingSecret: string | null;

  /**
   * The secret `signingSecret` replaced, still signing callbacks (a second Standard Webhooks
   * signature) until `previousSigningSecretUntil`, so receivers can switch without losing deliveries.
   */
  @Column({ name: 'previous_signing_secret', type: 'varchar', length: 255, nullable: true })
  previousSigningSecret: string | null;

  @TimeColumn({ name: 'previous_signing_secret_until', nullable: true })
  previousSigningSecretUntil: Date | null;

  /** True for the built-in account behind DEMO_API_KEY. */
  @Column({ name: 'is_demo', type: 'boolean', default: false })
  isDemo: boolean;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;
}

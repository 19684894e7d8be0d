import { createTransport, type Transporter } from 'nodemailer';
import type { logger as rootLogger } from '../../platform/logger';

type Logger = typeof rootLogger;

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Transactional emails through an SMTP relay (nodemailer, SMTP_URL). Without a relay the message
 * is written to the log, so a self-hosted service without mail still shows what it would send.
 * A failed send throws: the email job that called it is retried.
 */
export class Mailer {
  private readonly transport: Transporter | null;

  constructor(
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly logger: Logger,
  ) {
    this.transport = smtpUrl ? createTransport(smtpUrl) : null;
  }

  async send(mail: Mail): Promise<void> {
    if (!this.transport) {
      this.logger.info({ mail }, 'email (SMTP_URL unset: logged, not sent)');
      return;
    }
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }
}

import type { EmailVerificationResult } from '../../../src/services/verify/email-verification.service';
import { DnsTestServer } from '../../helpers/dns-test-server';
import {
  SmtpTestServer,
  type SmtpTestReply,
  type SmtpTestServerOptions,
} from '../../helpers/smtp-test-server';
import { untilNotRateLimited } from '../../helpers/test-retry';
import { startTestService, type TestService } from '../../helpers/test-service';

export const HELO_NAME = 'verifier.test';
export const MAIL_FROM = 'probe@verifier.test';
export const UNKNOWN_USER: SmtpTestReply = {
  code: 550,
  message: '5.1.1 <x>: Recipient address rejected: User unknown',
};

/** The GraphQL selection of every field of the result, in the spec's order. */
export const RESULT_FIELDS =
  'email domain reachable disposable roleAccount mxValid connection inboxFull catchAll deliverable disabled syntaxValid';

/**
 * A small mail world on loopback: a real DNS server, and one real SMTP server per scenario domain,
 * each on its own 127.0.0.x address and all on one port, so the service runs with its production
 * settings (one VERIFY_SMTP_PORT, MX resolution through DNS_SERVERS).
 */
export class MailWorld {
  readonly servers = new Map<string, SmtpTestServer>();
  private nextAddress = 21;

  private constructor(
    readonly dns: DnsTestServer,
    readonly smtpPort: number,
  ) {}

  static async start(): Promise<MailWorld> {
    const dns = await DnsTestServer.start();
    // The first server takes a free port that every other scenario shares at its own address.
    const first = await SmtpTestServer.start({ host: '127.0.0.20' });
    const world = new MailWorld(dns, first.port);
    world.servers.set('(port holder)', first);
    return world;
  }

  /** A server for `domain` on the next loopback address, with the domain's MX pointing there. */
  async scenario(domain: string, options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
    const host = `127.0.0.${this.nextAddress++}`;
    const server = await SmtpTestServer.start({ ...options, host, port: this.smtpPort });
    this.servers.set(domain, server);
    this.dns.add(domain, 'MX', `10 mx.${domain}`).add(`mx.${domain}`, 'A', host);
    return server;
  }

  /**
   * The service pointed at this world, with short per-step limits so a scenario that waits for a
   * timeout stays quick, yet generous enough that a loaded machine cannot change a verdict.
   */
  startService(settings: Record<string, string> = {}): Promise<TestService> {
    return startTestService({
      DNS_SERVERS: this.dns.address,
      DNS_TIMEOUT_MS: '2000',
      EMBEDDED_WORKER: 'false',
      VERIFY_SMTP_PORT: String(this.smtpPort),
      VERIFY_HELO_NAME: HELO_NAME,
      VERIFY_MAIL_FROM: MAIL_FROM,
      VERIFY_CONNECT_TIMEOUT_MS: '2000',
      VERIFY_REPLY_TIMEOUT_MS: '1000',
      VERIFY_TIMEOUT_MS: '8000',
      VERIFY_DOMAIN_INTERVAL_MS: '0',
      ...settings,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.close()));
    await this.dns.close();
  }
}

/** A server that accepts `users` and refuses every other address (the catch-all probe included). */
export function mailbox(users: string[]) {
  return (address: string) => (users.includes(address) ? ('accept' as const) : UNKNOWN_USER);
}

/** The result of a verification whose address was accepted, with the fields a scenario overrides. */
export function accepted(
  email: string,
  fields: Partial<EmailVerificationResult> = {},
): EmailVerificationResult {
  return {
    email,
    domain: email.slice(email.lastIndexOf('@') + 1).toLowerCase(),
    reachable: 'safe',
    disposable: false,
    roleAccount: false,
    mxValid: true,
    connection: true,
    inboxFull: false,
    catchAll: false,
    deliverable: true,
    disabled: false,
    syntaxValid: true,
    ...fields,
  };
}

/** GET /v2/verify/?email=…, through the 5 requests/s limit (the rate-limit test calls directly). */
export function getVerify(service: TestService, key: string, email: string, path = '/v2/verify/') {
  return untilNotRateLimited(service, () =>
    service.request(`${path}?${new URLSearchParams({ email })}`, { key }),
  );
}

/** The GraphQL query, through the rate limit like getVerify. */
export function graphqlVerify(service: TestService, key: string, email: string) {
  return untilNotRateLimited(service, () =>
    service.graphql(key, `query($email: String!) { verifyEmail(email: $email) { ${RESULT_FIELDS} } }`, {
      email,
    }),
  );
}

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { promises as dns } from 'node:dns';
import { createDnsResolver } from '../fetch/dns-resolver';
import { logger } from '../platform/logger';
import { isDisposableDomain } from './disposable-domain-checker';
import { DomainProbeLimiter } from './domain-probe-limiter';
import { domainPartOf, parseEmailAddress, type ParsedEmailAddress } from './email-syntax-validator';
import { requireEmailInput } from './email-input';
import type { EmailVerificationResult } from './email-verification-result';
import { lookupMailExchange, resolveHostAddresses } from './mail-exchange-lookup';
import { probeMailbox, type MailboxProbeOutcome } from './mailbox-prober';
import { decideReachable, type ReachableFacts } from './reachable-decision-table';
import { isRoleAccount } from './role-account-checker';
import { interpretRecipientReply } from './smtp-reply-interpreter';
import { VerificationResultCache } from './verification-result-cache';

export interface EmailVerifierOptions {
  /** DNS servers ("ip" or "ip:port"); empty means the system's (DNS_SERVERS). */
  dnsServers?: string[];
  /** Per-query DNS timeout (DNS_TIMEOUT_MS). */
  dnsTimeoutMs?: number;
  /** Attempts per DNS query. */
  dnsTries?: number;
  /** Port of the mail servers (VERIFY_SMTP_PORT). */
  smtpPort?: number;
  /** Name announced in EHLO/HELO (VERIFY_HELO_NAME); should resolve back to the service's IP. */
  heloName?: string;
  /** Reverse path of MAIL FROM (VERIFY_MAIL_FROM). */
  mailFrom?: string;
  /** TCP connect timeout per mail server address (VERIFY_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Wait for each SMTP reply, the greeting included (VERIFY_REPLY_TIMEOUT_MS). */
  replyTimeoutMs?: number;
  /** Bound of one whole verification, waiting for the domain's turn included (VERIFY_TIMEOUT_MS). */
  totalTimeoutMs?: number;
  /** MX hosts tried at most per verification (VERIFY_MAX_MX_HOSTS). */
  maxMxHosts?: number;
  /** How long a result is reused (VERIFY_CACHE_TTL_SECONDS); 0 disables the cache. */
  cacheTtlSeconds?: number;
  /** How long an `unknown` result is reused (VERIFY_CACHE_UNKNOWN_TTL_SECONDS). */
  unknownCacheTtlSeconds?: number;
  /** Cached addresses at most (VERIFY_CACHE_MAX_ENTRIES). */
  cacheMaxEntries?: number;
  /** Concurrent probes per destination domain (VERIFY_DOMAIN_CONCURRENCY). */
  domainConcurrency?: number;
  /** Minimum spacing between probe starts per destination domain (VERIFY_DOMAIN_INTERVAL_MS). */
  domainIntervalMs?: number;
  /** Let MX hosts resolve to private, loopback and link-local addresses (ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets?: boolean;
  /** Milliseconds clock of the cache; tests pass a controllable one. */
  now?: () => number;
}

const DEFAULT_HELO_NAME = hostname();
const DEFAULTS = {
  dnsServers: [] as string[],
  dnsTimeoutMs: 3000,
  dnsTries: 2,
  smtpPort: 25,
  heloName: DEFAULT_HELO_NAME,
  mailFrom: `verify@${DEFAULT_HELO_NAME}`,
  connectTimeoutMs: 5000,
  replyTimeoutMs: 10_000,
  // The spec bounds GET /v2/verify/ at 30 s; leave room for the platform around the verification.
  totalTimeoutMs: 25_000,
  maxMxHosts: 3,
  cacheTtlSeconds: 86_400,
  // Greylisting and temporary failures usually clear within minutes: ask again soon.
  unknownCacheTtlSeconds: 300,
  cacheMaxEntries: 10_000,
  domainConcurrency: 2,
  domainIntervalMs: 500,
  allowPrivateTargets: false,
};

const log = logger.child({ module: 'email-verifier' });

/**
 * Verifies email addresses: syntax, the domain's mail exchangers, and an SMTP conversation with
 * them that stops before DATA. Results are cached per address; probes are limited per domain.
 * Plan gates, credits and request rate limits belong to the caller.
 */
export class EmailVerifier {
  private readonly settings: Required<Omit<EmailVerifierOptions, 'now'>>;
  private readonly resolver: dns.Resolver;
  private readonly cache: VerificationResultCache<Omit<EmailVerificationResult, 'email'>>;
  private readonly inFlight = new Map<string, Promise<Omit<EmailVerificationResult, 'email'>>>();
  private readonly limiter: DomainProbeLimiter;

  constructor(options: EmailVerifierOptions = {}) {
    const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    this.settings = { ...DEFAULTS, ...defined };
    if (options.heloName && !options.mailFrom) this.settings.mailFrom = `verify@${options.heloName}`;
    this.resolver = createDnsResolver({
      servers: this.settings.dnsServers,
      timeoutMs: this.settings.dnsTimeoutMs,
      tries: this.settings.dnsTries,
    });
    this.cache = new VerificationResultCache({ maxEntries: this.settings.cacheMaxEntries, now: options.now });
    this.limiter = new DomainProbeLimiter({
      concurrency: this.settings.domainConcurrency,
      minIntervalMs: this.settings.domainIntervalMs,
    });
  }

  /**
   * Never throws for an address that is wrong (that is a result); throws ValidationError('email')
   * only when the input is missing or longer than 320 characters (requireEmailInput).
   */
  async verify(email: string): Promise<EmailVerificationResult> {
    requireEmailInput(email);
    const parsed = parseEmailAddress(email);
    if (!parsed) return { email, ...invalidSyntaxResult(domainPartOf(email)) };
    const key = `${parsed.localPart}@${parsed.domain}`;
    const cached = this.cache.get(key);
    if (cached) return { email, ...cached };
    // Concurrent requests for one address share one probe instead of knocking twice.
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.check(parsed).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return { email, ...(await pending) };
  }

  private async check(address: ParsedEmailAddress): Promise<Omit<EmailVerificationResult, 'email'>> {
    const signal = AbortSignal.timeout(this.settings.totalTimeoutMs);
    const result = await this.checkWithin(address, signal);
    const ttlSeconds =
      result.reachable === 'unknown'
        ? Math.min(this.settings.unknownCacheTtlSeconds, this.settings.cacheTtlSeconds)
        : this.settings.cacheTtlSeconds;
    this.cache.set(`${address.localPart}@${address.domain}`, result, ttlSeconds * 1000);
    return result;
  }

  private async checkWithin(
    { localPart, domain }: ParsedEmailAddress,
    signal: AbortSignal,
  ): Promise<Omit<EmailVerificationResult, 'email'>> {
    const base = {
      domain,
      syntaxValid: true,
      disposable: isDisposableDomain(domain),
      roleAccount: isRoleAccount(localPart),
    };
    const exchange = await lookupMailExchange(this.resolver, domain, signal);
    if (exchange.status !== 'found') {
      log.debug({ domain, exchange }, 'domain has no usable mail exchange');
      const facts = {
        ...base,
        domainMail: exchange.status === 'no-mail' ? 'none' : 'dns-failure',
        mailbox: 'no-answer',
        catchAll: false,
      } as const;
      return { ...base, ...NO_SMTP_ANSWER, mxValid: false, reachable: decideReachable(facts) };
    }
    const probe = await this.limiter
      .run(domain, signal, () =>
        probeMailbox(
          exchange.hosts,
          { address: `${localPart}@${domain}`, catchAllProbe: `${randomLocalPart()}@${domain}` },
          {
            port: this.settings.smtpPort,
            heloName: this.settings.heloName,
            mailFrom: this.settings.mailFrom,
            connectTimeoutMs: this.settings.connectTimeoutMs,
            replyTimeoutMs: this.settings.replyTimeoutMs,
            maxHosts: this.settings.maxMxHosts,
            resolveAddresses: (host) => resolveHostAddresses(this.resolver, host, signal),
            allowPrivateTargets: this.settings.allowPrivateTargets,
            signal,
          },
        ),
      )
      .catch((error: unknown): MailboxProbeOutcome => {
        // The limiter rejects when time ran out in its queue; anything else would be a bug here.
        if (!signal.aborted) log.warn({ domain, err: error }, 'mailbox probe failed unexpectedly');
        return { connection: false, catchAllReply: null, addressReply: null, failure: String(error) };
      });
    if (probe.failure) log.debug({ domain, failure: probe.failure }, 'no recipient answer');
    const mailbox = mailboxFacts(probe);
    const facts: ReachableFacts = {
      ...base,
      domainMail: 'receives',
      mailbox: mailbox.state,
      catchAll: mailbox.catchAll,
    };
    return {
      ...base,
      mxValid: true,
      connection: probe.connection,
      inboxFull: mailbox.state === 'inbox-full',
      catchAll: mailbox.catchAll,
      deliverable: mailbox.state === 'accepted',
      disabled: mailbox.disabled,
      reachable: decideReachable(facts),
    };
  }
}

const NO_SMTP_ANSWER = {
  connection: false,
  inboxFull: false,
  catchAll: false,
  deliverable: false,
  disabled: false,
};

function invalidSyntaxResult(domain: string): Omit<EmailVerificationResult, 'email'> {
  return {
    domain,
    reachable: 'invalid',
    disposable: false,
    roleAccount: false,
    mxValid: false,
    ...NO_SMTP_ANSWER,
    syntaxValid: false,
  };
}

/** What the two RCPT replies say about the mailbox. */
function mailboxFacts(probe: MailboxProbeOutcome): {
  state: ReachableFacts['mailbox'];
  catchAll: boolean;
  disabled: boolean;
} {
  const catchAll =
    probe.catchAllReply !== null && interpretRecipientReply(probe.catchAllReply).replyClass === 'accepted';
  if (!probe.addressReply) return { state: 'no-answer', catchAll, disabled: false };
  const { replyClass, reason } = interpretRecipientReply(probe.addressReply);
  // A disabled mailbox is reported as such even when the refusal is temporary.
  const disabled = reason === 'disabled';
  if (replyClass === 'accepted') return { state: 'accepted', catchAll, disabled };
  if (reason === 'inbox-full') return { state: 'inbox-full', catchAll, disabled };
  // 4xx never makes an address invalid, and a policy refusal says nothing about the address.
  if (replyClass === 'temporary' || reason === 'policy') return { state: 'no-answer', catchAll, disabled };
  return { state: disabled ? 'disabled' : 'rejected', catchAll, disabled };
}

/** A local part no real mailbox has, to see whether the server accepts anything. */
function randomLocalPart(): string {
  return `verify-${randomBytes(9).toString('hex')}`;
}

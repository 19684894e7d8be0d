import type { Config } from '../../platform/config';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import { EmailVerifier, type EmailVerificationResult } from '../../verify';
import type { Caller } from '../platform/caller';
import type { MeteringService } from '../platform/metering.service';

export type { EmailVerificationResult, Reachable } from '../../verify';
export {
  MAX_EMAIL_INPUT_LENGTH,
  REACHABLE_DESCRIPTION,
  REACHABLE_RULES,
  REACHABLE_VALUES,
} from '../../verify';

/** The verifier, configured from the VERIFY_* settings and the service's DNS servers. */
export function buildEmailVerifier(config: Config): EmailVerifier {
  return new EmailVerifier({
    dnsServers: [...config.DNS_SERVERS],
    dnsTimeoutMs: config.DNS_TIMEOUT_MS,
    smtpPort: config.VERIFY_SMTP_PORT,
    heloName: config.VERIFY_HELO_NAME,
    mailFrom: config.VERIFY_MAIL_FROM,
    connectTimeoutMs: config.VERIFY_CONNECT_TIMEOUT_MS,
    replyTimeoutMs: config.VERIFY_REPLY_TIMEOUT_MS,
    totalTimeoutMs: config.VERIFY_TIMEOUT_MS,
    maxMxHosts: config.VERIFY_MAX_MX_HOSTS,
    cacheTtlSeconds: config.VERIFY_CACHE_TTL_SECONDS,
    unknownCacheTtlSeconds: config.VERIFY_CACHE_UNKNOWN_TTL_SECONDS,
    cacheMaxEntries: config.VERIFY_CACHE_MAX_ENTRIES,
    domainConcurrency: config.VERIFY_DOMAIN_CONCURRENCY,
    domainIntervalMs: config.VERIFY_DOMAIN_INTERVAL_MS,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
  });
}

/**
 * GET /v2/verify/: one address, Business plan only, 1 credit per address answered.
 *
 * Every result is an answer and is charged, whatever its verdict: `invalid` for bad syntax (decided
 * without any network traffic), a result served from the cache, and `unknown` when the mail server
 * gave no final answer or the verification ran out of time. Only input that is not an address at
 * all (missing, longer than 320 characters) is refused with a 400, before the quota is counted.
 */
export class EmailVerificationService {
  constructor(
    private readonly verifier: EmailVerifier,
    private readonly metering: MeteringService,
  ) {}

  /** `email` as its request schema admits it (verify.contract.ts). */
  async verify(caller: Caller, email: string): Promise<EmailVerificationResult> {
    const price = CREDIT_PRICES.verify.credits;
    return this.metering.run(
      caller,
      { feature: 'verify', minimumCost: price, cost: () => price, reason: CREDIT_PRICES.verify.endpoint },
      () => this.verifier.verify(email),
    );
  }
}

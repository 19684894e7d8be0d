import type { Reachable } from './email-verification-result';

/** What the verification found, reduced to what the `reachable` verdict depends on. */
export interface ReachableFacts {
  syntaxValid: boolean;
  /** From DNS: the domain receives mail, provably cannot, or DNS gave no answer. */
  domainMail: 'receives' | 'none' | 'dns-failure';
  /**
   * From SMTP: the address was accepted; permanently refused as unknown (or for no stated reason);
   * permanently refused as disabled; refused because the inbox is full (any class); or no final
   * answer (unreachable, timeout, 4xx, greylisting, policy or blocklist refusal).
   */
  mailbox: 'accepted' | 'rejected' | 'disabled' | 'inbox-full' | 'no-answer';
  disposable: boolean;
  roleAccount: boolean;
  catchAll: boolean;
}

export interface ReachableRule {
  reachable: Reachable;
  /** The rule in words, for the README and the API documentation. */
  when: string;
  applies(facts: ReachableFacts): boolean;
}

/** The `reachable` decision: the first rule that applies wins; the last one always applies. */
export const REACHABLE_RULES: readonly ReachableRule[] = [
  {
    reachable: 'invalid',
    when: 'the address is not syntactically valid (no DNS or SMTP is attempted)',
    applies: (f) => !f.syntaxValid,
  },
  {
    reachable: 'invalid',
    when: 'the domain cannot receive mail: it does not exist (NXDOMAIN), has a null MX, or has neither MX nor A/AAAA records',
    applies: (f) => f.domainMail === 'none',
  },
  {
    reachable: 'unknown',
    when: 'DNS gave no answer for the domain (timeout, SERVFAIL, refused)',
    applies: (f) => f.domainMail === 'dns-failure',
  },
  {
    reachable: 'invalid',
    when: 'the mail server permanently (5xx) refuses the address as unknown, disabled, or without a policy reason',
    applies: (f) => f.mailbox === 'rejected' || f.mailbox === 'disabled',
  },
  {
    reachable: 'risky',
    when: 'the inbox is full (5.2.2 or 4.2.2, "mailbox full", "over quota"…)',
    applies: (f) => f.mailbox === 'inbox-full',
  },
  {
    reachable: 'unknown',
    when: 'no final answer about the address: no server reachable, timeouts, temporary (4xx) replies such as greylisting, policy or blocklist refusals',
    applies: (f) => f.mailbox === 'no-answer',
  },
  {
    reachable: 'risky',
    when: 'the address is accepted but the domain is disposable, the address is a role account, or the domain accepts any address (catch-all)',
    applies: (f) => f.disposable || f.roleAccount || f.catchAll,
  },
  {
    reachable: 'safe',
    when: 'the address is accepted and none of the above applies',
    applies: () => true,
  },
];

export function decideReachable(facts: ReachableFacts): Reachable {
  const rule = REACHABLE_RULES.find((candidate) => candidate.applies(facts));
  // The last rule always applies; this only satisfies the type checker.
  return rule?.reachable ?? 'unknown';
}

/** The rules in words, first match wins: the API documentation's description of `reachable`. */
export const REACHABLE_DESCRIPTION =
  'safe, risky, invalid or unknown; the first rule that applies decides: ' +
  REACHABLE_RULES.map((rule, i) => `(${i + 1}) ${rule.reachable} when ${rule.when}`).join('; ');

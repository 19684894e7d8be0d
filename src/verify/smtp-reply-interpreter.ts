import type { SmtpReply } from './smtp-connection-client';

/** What a reply to RCPT TO says, by code class: 2xx accepted, 4xx try later, 5xx final. */
export type ReplyClass = 'accepted' | 'temporary' | 'permanent';

/** Why a recipient was refused, when the reply tells. */
export type RefusalReason =
  /** The mailbox exists but is over quota. */
  | 'inbox-full'
  /** The mailbox exists but is disabled, inactive or discontinued. */
  | 'disabled'
  /** The server does not know the mailbox. */
  | 'unknown-user'
  /** The refusal is about the sender or the connection (blocklist, policy), not the address. */
  | 'policy'
  /** The reply does not say. */
  | 'unspecified';

export interface ReplyInterpretation {
  replyClass: ReplyClass;
  /** null when the recipient was accepted. */
  reason: RefusalReason | null;
}

/**
 * RFC 3463 subjects and details with a fixed meaning for a recipient. Enhanced codes are more
 * reliable than reply texts, so they decide when they are one of these; other codes (X.0.0,
 * X.2.0, X.5.x…) say nothing specific and the text decides.
 */
const REASON_BY_ENHANCED_CODE: readonly [RegExp, RefusalReason][] = [
  [/^[45]\.2\.2$/, 'inbox-full'],
  [/^[45]\.2\.1$/, 'disabled'],
  [/^[45]\.7\.[0-9]+$/, 'policy'],
  // X.1.1 bad mailbox, X.1.0 other address status, X.1.3 bad mailbox syntax, X.1.6 mailbox moved.
  [/^[45]\.1\.[0136]$/, 'unknown-user'],
];

/**
 * Texts of real refusals. Policy texts are checked before unknown-user ones: a blocklist message
 * often mentions the recipient too ("recipient rejected: blocked using …"), and calling a policy
 * refusal "unknown user" would turn "we were not told" into "the address is invalid".
 */
const REASON_BY_TEXT: readonly [RegExp, RefusalReason][] = [
  [
    /mailbox (is )?full|over ?quota|quota (exceeded|reached)|exceed(s|ed)? (the |its |their )?(storage|quota)|out of storage|mailbox size limit|insufficient (user )?storage for (this )?(user|mailbox)/i,
    'inbox-full',
  ],
  [
    /\b(disabled|inactive|discontinued|deactivated|suspended)\b|no longer (active|in use|available)|account (is |has been )?(closed|locked|expired|frozen)/i,
    'disabled',
  ],
  [
    /\b(block(ed|list(ed)?)?|black ?list(ed)?|spamhaus|spamcop|barracuda|policy|reputation|rbl|dnsbl|spam|relay(ing)? (access )?(denied|not permitted)|not permitted to relay|access denied|sender (address )?rejected|reverse dns|ptr record|too many (connections|recipients|messages)|rate limit(ed)?)\b/i,
    'policy',
  ],
  [
    /user unknown|unknown user|no such (user|mailbox|recipient|address)|(user|mailbox|recipient|address)( \S+)? (does not|doesn't) exist|(invalid|unknown) (recipient|mailbox|address)|recipient not found|mailbox not found|mailbox unavailable|not a valid (mailbox|recipient)|no mailbox|address rejected|unrouteable address|undeliverable address/i,
    'unknown-user',
  ],
];

/** Interprets the reply to `RCPT TO`: the code class first, then the enhanced code, then the text. */
export function interpretRecipientReply(reply: SmtpReply): ReplyInterpretation {
  if (reply.code >= 200 && reply.code < 300) return { replyClass: 'accepted', reason: null };
  // 3xx is not a valid answer to RCPT; like 4xx it gives no final information.
  const replyClass: ReplyClass = reply.code >= 500 ? 'permanent' : 'temporary';
  return { replyClass, reason: refusalReason(reply) };
}

function refusalReason(reply: SmtpReply): RefusalReason {
  const code = reply.enhancedCode;
  if (code) {
    for (const [pattern, reason] of REASON_BY_ENHANCED_CODE) if (pattern.test(code)) return reason;
  }
  for (const [pattern, reason] of REASON_BY_TEXT) if (pattern.test(reply.text)) return reason;
  return 'unspecified';
}

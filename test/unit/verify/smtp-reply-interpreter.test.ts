import type { SmtpReply } from '../../../src/verify/smtp-connection-client';
import { interpretRecipientReply } from '../../../src/verify/smtp-reply-interpreter';

function reply(code: number, text: string): SmtpReply {
  return { code, enhancedCode: /^([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1] ?? null, text };
}

describe('interpretRecipientReply', () => {
  it.each([
    [250, '2.1.5 Ok'],
    [251, 'User not local; will forward'],
    [252, 'Cannot VRFY user, but will accept message'],
  ])('%i is accepted', (code, text) => {
    expect(interpretRecipientReply(reply(code, text))).toEqual({ replyClass: 'accepted', reason: null });
  });

  it.each([
    // Enhanced status codes decide.
    [
      550,
      '5.1.1 <x@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
      'unknown-user',
    ],
    [550, '5.1.0 Address rejected', 'unknown-user'],
    [553, '5.1.3 Invalid recipient address syntax', 'unknown-user'],
    [552, '5.2.2 Mailbox full', 'inbox-full'],
    [550, '5.2.1 The email account that you tried to reach is disabled', 'disabled'],
    [554, '5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', 'policy'],
    [550, '5.7.606 Access denied, banned sending IP', 'policy'],
    // The enhanced code wins over words that point elsewhere.
    [550, '5.1.1 User unknown (account disabled by the spam filter)', 'unknown-user'],
    // Codes without a fixed meaning leave it to the text.
    [550, '5.0.0 Mailbox is full', 'inbox-full'],
    [550, '5.2.0 Account inactive', 'disabled'],
    [550, '5.5.0 Requested action not taken: mailbox unavailable', 'unknown-user'],
    // No enhanced code: the text.
    [550, 'Requested action not taken: mailbox unavailable', 'unknown-user'],
    [550, 'No such user here', 'unknown-user'],
    [550, "Mailbox doesn't exist", 'unknown-user'],
    [550, 'Sorry, user bob does not exist', 'unknown-user'],
    [552, 'Requested mail action aborted: exceeded storage allocation', 'inbox-full'],
    [552, 'User is over quota', 'inbox-full'],
    [550, 'Recipient is out of storage space', 'inbox-full'],
    [550, 'This account has been discontinued', 'disabled'],
    [550, 'Mailbox deactivated', 'disabled'],
    [550, 'Relay access denied', 'policy'],
    [554, 'Rejected: your IP is on a blocklist', 'policy'],
    [550, 'Message rejected due to local policy', 'policy'],
    [550, 'Blocked by Barracuda reputation service', 'policy'],
    [554, 'Transaction failed', 'unspecified'],
  ])('%i %s: permanent, %s', (code, text, reason) => {
    expect(interpretRecipientReply(reply(code, text))).toEqual({ replyClass: 'permanent', reason });
  });

  it.each([
    [452, '4.2.2 The email account that you tried to reach is over quota', 'inbox-full'],
    [450, '4.2.1 Mailbox temporarily disabled', 'disabled'],
    [450, '4.2.0 Greylisted, see http://postgrey.schweikert.ch/', 'unspecified'],
    [451, '4.7.1 Please try again later', 'policy'],
    [450, '4.1.1 Recipient address rejected: unverified address', 'unknown-user'],
    [421, 'Service not available, closing transmission channel', 'unspecified'],
    [452, 'Requested action not taken: insufficient system storage', 'unspecified'],
  ])('%i %s: temporary, %s', (code, text, reason) => {
    expect(interpretRecipientReply(reply(code, text))).toEqual({ replyClass: 'temporary', reason });
  });

  it('reads the code class before the enhanced code: a 4xx is temporary whatever the detail says', () => {
    expect(interpretRecipientReply(reply(450, '5.1.1 User unknown')).replyClass).toBe('temporary');
  });
});

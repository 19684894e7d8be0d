import {
  decideReachable,
  REACHABLE_RULES,
  type ReachableFacts,
} from '../../../src/verify/reachable-decision-table';

const accepted: ReachableFacts = {
  syntaxValid: true,
  domainMail: 'receives',
  mailbox: 'accepted',
  disposable: false,
  roleAccount: false,
  catchAll: false,
};

describe('decideReachable', () => {
  it.each<[string, Partial<ReachableFacts>, string]>([
    ['accepted, nothing else', {}, 'safe'],
    ['invalid syntax', { syntaxValid: false, domainMail: 'none', mailbox: 'no-answer' }, 'invalid'],
    ['domain cannot receive mail', { domainMail: 'none', mailbox: 'no-answer' }, 'invalid'],
    ['DNS failure', { domainMail: 'dns-failure', mailbox: 'no-answer' }, 'unknown'],
    ['unknown user', { mailbox: 'rejected' }, 'invalid'],
    ['disabled', { mailbox: 'disabled' }, 'invalid'],
    ['inbox full', { mailbox: 'inbox-full' }, 'risky'],
    ['no answer', { mailbox: 'no-answer' }, 'unknown'],
    ['disposable', { disposable: true }, 'risky'],
    ['role account', { roleAccount: true }, 'risky'],
    ['catch-all', { catchAll: true }, 'risky'],
    // Precedence: a definite "no" beats "risky"; "no answer" is not made risky by the domain.
    ['disposable but rejected', { disposable: true, mailbox: 'rejected' }, 'invalid'],
    ['role account, no answer', { roleAccount: true, mailbox: 'no-answer' }, 'unknown'],
    ['catch-all with a full inbox', { catchAll: true, mailbox: 'inbox-full' }, 'risky'],
    [
      'nonexistent disposable domain',
      { disposable: true, domainMail: 'none', mailbox: 'no-answer' },
      'invalid',
    ],
  ])('%s → %s', (_, facts, reachable) => {
    expect(decideReachable({ ...accepted, ...facts })).toBe(reachable);
  });

  it('is documented by its rules: every verdict appears, and the last rule always applies', () => {
    expect(new Set(REACHABLE_RULES.map((rule) => rule.reachable))).toEqual(
      new Set(['safe', 'risky', 'invalid', 'unknown']),
    );
    expect(REACHABLE_RULES.every((rule) => rule.when.length > 10)).toBe(true);
    const last = REACHABLE_RULES[REACHABLE_RULES.length - 1];
    expect(last.applies({ ...accepted, mailbox: 'no-answer', domainMail: 'dns-failure' })).toBe(true);
  });
});

import { emailVerificationSets, type EmailVerdict } from '../../../src/enrichment';
import { BoundedSiteEmailVerifier } from '../../../src/services/analysis/site-email-verifier';

const verdict = (
  email: string,
  reachable: EmailVerdict['reachable'],
  deliverable: boolean,
  catchAll = false,
): EmailVerdict => ({
  email,
  reachable,
  deliverable,
  catchAll,
  disposable: false,
});

describe('verifiedEmail and safeEmail', () => {
  it('lists deliverable addresses as verified and safe ones as safe; unknown ones in neither', () => {
    const sets = emailVerificationSets(
      ['a@acme.de', 'b@acme.de', 'c@acme.de', 'd@acme.de', 'e@acme.de'],
      [
        verdict('a@acme.de', 'safe', true),
        verdict('b@acme.de', 'risky', true, true),
        verdict('c@acme.de', 'invalid', false),
        verdict('d@acme.de', 'unknown', false), // port 25 closed, greylisted, timed out
      ],
    );
    expect(sets).toEqual({ verifiedEmail: ['a@acme.de', 'b@acme.de'], safeEmail: ['a@acme.de'] });
    expect(emailVerificationSets(['x@acme.de'], [verdict('x@acme.de', 'unknown', false)])).toEqual({});
  });
});

describe('BoundedSiteEmailVerifier', () => {
  it('verifies at most maxEmails addresses, a few at a time', async () => {
    let running = 0;
    let peak = 0;
    const asked: string[] = [];
    const verifier = new BoundedSiteEmailVerifier(
      async (email) => {
        asked.push(email);
        peak = Math.max(peak, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return verdict(email, 'safe', true);
      },
      { maxEmails: 3, concurrency: 2 },
    );
    const verdicts = await verifier.verifyAll(['a@x.de', 'b@x.de', 'a@x.de', 'c@x.de', 'd@x.de']);
    expect(asked.sort()).toEqual(['a@x.de', 'b@x.de', 'c@x.de']);
    expect(verdicts).toHaveLength(3);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it('gives up at its time budget and leaves failed verifications without a verdict', async () => {
    const verifier = new BoundedSiteEmailVerifier(
      (email) =>
        email.startsWith('slow')
          ? new Promise<EmailVerdict>(() => undefined)
          : email.startsWith('bad')
            ? Promise.reject(new Error('resolver down'))
            : Promise.resolve(verdict(email, 'safe', true)),
      { budgetMs: 50, concurrency: 3 },
    );
    const verdicts = await verifier.verifyAll(['slow@x.de', 'bad@x.de', 'ok@x.de']);
    expect(verdicts.map((v) => v.email)).toEqual(['ok@x.de']);
  });
});

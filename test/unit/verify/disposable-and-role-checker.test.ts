import { isDisposableDomain } from '../../../src/verify/disposable-domain-checker';
import { isRoleAccount } from '../../../src/verify/role-account-checker';

describe('isDisposableDomain', () => {
  it('finds listed domains and their subdomains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('team.mailinator.com')).toBe(true);
    expect(isDisposableDomain('yopmail.com')).toBe(true);
  });

  it('uses the wildcard list too', () => {
    expect(isDisposableDomain('someone.33mail.com')).toBe(true);
  });

  it('does not flag ordinary domains, nor a domain that merely contains a listed one', () => {
    expect(isDisposableDomain('example.com')).toBe(false);
    expect(isDisposableDomain('gmail.com')).toBe(false);
    expect(isDisposableDomain('mailinator.com.example.org')).toBe(false);
    // A bare public suffix is never a match on its own.
    expect(isDisposableDomain('com')).toBe(false);
  });
});

describe('isRoleAccount', () => {
  it.each(['admin', 'info', 'sales', 'Support', 'postmaster', 'sales+emea'])(
    '%s is a role account',
    (local) => {
      expect(isRoleAccount(local)).toBe(true);
    },
  );

  it.each(['alice', 'john.smith', 'j.doe+admin'])('%s is a person', (local) => {
    expect(isRoleAccount(local)).toBe(false);
  });
});

import { domainPartOf, parseEmailAddress } from '../../../src/verify/email-syntax-validator';

describe('parseEmailAddress', () => {
  it.each([
    ['alice@example.com', 'alice', 'example.com'],
    ['Alice.Smith+tag@Example.COM', 'Alice.Smith+tag', 'example.com'],
    ["o'brien!#$%&*=?^_`{|}~-/@mail.example.co.uk", "o'brien!#$%&*=?^_`{|}~-/", 'mail.example.co.uk'],
    ['a@b.co', 'a', 'b.co'],
    ['user@xn--bcher-kva.example', 'user', 'xn--bcher-kva.example'],
    ['user@Bücher.example', 'user', 'xn--bcher-kva.example'],
    ['user@例え.テスト', 'user', 'xn--r8jz45g.xn--zckzah'],
    ['user@sub-domain.1example.com', 'user', 'sub-domain.1example.com'],
    [`${'l'.repeat(64)}@example.com`, 'l'.repeat(64), 'example.com'],
  ])('accepts %s', (input, localPart, domain) => {
    expect(parseEmailAddress(input)).toEqual({ localPart, domain });
  });

  it.each([
    ['', 'empty'],
    ['plainaddress', 'no @'],
    ['@example.com', 'empty local part'],
    ['alice@', 'empty domain'],
    ['alice@@example.com', 'two @'],
    ['a@b@example.com', 'two @'],
    ['.alice@example.com', 'leading dot'],
    ['alice.@example.com', 'trailing dot'],
    ['al..ice@example.com', 'double dot'],
    ['"alice"@example.com', 'quoted local part'],
    ['al ice@example.com', 'space'],
    ['alice(comment)@example.com', 'comment'],
    ['josé@example.com', 'non-ASCII local part'],
    [`${'l'.repeat(65)}@example.com`, 'local part over 64'],
    ['alice@example', 'domain without a dot'],
    ['alice@example.com.', 'trailing dot in the domain'],
    ['alice@.example.com', 'leading dot in the domain'],
    ['alice@exa..mple.com', 'empty label'],
    ['alice@-example.com', 'label starting with a hyphen'],
    ['alice@example-.com', 'label ending with a hyphen'],
    ['alice@exa_mple.com', 'underscore'],
    ['alice@[127.0.0.1]', 'address literal'],
    ['alice@127.0.0.1', 'IP address'],
    [`alice@${'a'.repeat(64)}.com`, 'label over 63'],
    [`alice@${Array.from({ length: 5 }, () => 'a'.repeat(63)).join('.')}.com`, 'domain over 255'],
    ['alice@xn--zz.com', 'broken punycode'],
    [' alice@example.com', 'surrounding whitespace'],
  ])('rejects %s (%s)', (input) => {
    expect(parseEmailAddress(input)).toBeNull();
  });

  it('accepts a domain of exactly 255 characters', () => {
    const domain = `${Array.from({ length: 3 }, () => 'a'.repeat(63)).join('.')}.${'b'.repeat(63)}`;
    expect(domain).toHaveLength(255);
    expect(parseEmailAddress(`x@${domain}`)).toEqual({ localPart: 'x', domain });
  });
});

describe('domainPartOf', () => {
  it('is the lower-cased text after the last @, or empty', () => {
    expect(domainPartOf('a@b@Example.COM')).toBe('example.com');
    expect(domainPartOf('no-at-sign')).toBe('');
  });
});

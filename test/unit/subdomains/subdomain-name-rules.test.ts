import { ValidationError } from '../../../src/errors';
import {
  acceptSubdomain,
  normaliseHostname,
  normaliseRequestedDomain,
} from '../../../src/subdomains/subdomain-name-rules';

describe('normaliseRequestedDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['WWW.Example.COM.', 'example.com'],
    ['  shop.example.co.uk ', 'example.co.uk'],
    ['a.b.example.test', 'example.test'],
    ['user.github.io', 'user.github.io'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseRequestedDomain(input)).toBe(expected);
  });

  it.each([
    ['192.0.2.1', 'is an IP address'],
    ['[2001:db8::1]', 'is an IP address'],
    ['2001:db8::1', 'is an IP address'],
    ['exa mple.com', 'is not a valid domain name'],
    ['-bad-.com', 'is not a valid domain name'],
    ['a..b.com', 'is not a valid domain name'],
    ['https://example.com/', 'is not a valid domain name'],
    ['example.com:443', 'is not a valid domain name'],
    ['localhost', 'is not a valid domain name'],
    ['', 'is not a valid domain name'],
    ['co.uk', 'is a public suffix'],
    ['github.io', 'is a public suffix'],
  ])('rejects %j: %s', (input, reason) => {
    let error: unknown;
    try {
      normaliseRequestedDomain(input);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).parameter).toBe('domains');
    expect((error as ValidationError).message).toContain(`"${input.trim()}" ${reason}`);
  });
});

describe('acceptSubdomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['WWW.Example.com', 'www.example.com'],
    ['www.example.com.', 'www.example.com'],
    ['*.example.com', 'example.com'],
    ['*.Dev.Example.com.', 'dev.example.com'],
    ['a.b.c.example.com', 'a.b.c.example.com'],
    ['my_host.example.com', 'my_host.example.com'],
    ['bücher.example.com', 'xn--bcher-kva.example.com'],
  ])('keeps %s as %s', (name, expected) => {
    expect(acceptSubdomain(name, 'example.com')).toBe(expected);
  });

  it.each([
    'notexample.com',
    'example.com.evil.test',
    'example.org',
    'com',
    '_dmarc.example.com',
    '_sip._tls.example.com',
    'a b.example.com',
    'a..example.com',
    '-x.example.com',
    '*',
    '',
    '.',
    '192.0.2.1',
    `${'a'.repeat(64)}.example.com`,
  ])('refuses %j', (name) => {
    expect(acceptSubdomain(name, 'example.com')).toBeNull();
  });
});

describe('normaliseHostname', () => {
  it('keeps underscore labels, which SPF policies use, but refuses macros', () => {
    expect(normaliseHostname('_spf.Example.com.')).toBe('_spf.example.com');
    expect(normaliseHostname('%{i}._spf.example.com')).toBeNull();
  });

  it('refuses names longer than 253 characters', () => {
    const label = 'a'.repeat(60);
    expect(normaliseHostname([label, label, label, label, 'example.com'].join('.'))).toBeNull();
  });
});

import { ObservationCollector } from '../../../src/subdomains/observation-collector';
import { SUBDOMAIN_WORDLIST } from '../../../src/subdomains/subdomain-wordlist';
import { answersLikeWildcard } from '../../../src/subdomains/wildcard-detector';

describe('answersLikeWildcard', () => {
  const wildcard = new Set(['A 192.0.2.50', 'A 192.0.2.51']);

  it('matches names whose answers all come from the wildcard pool', () => {
    expect(answersLikeWildcard(['A 192.0.2.51'], wildcard)).toBe(true);
    expect(answersLikeWildcard(['A 192.0.2.50', 'A 192.0.2.51'], wildcard)).toBe(true);
  });

  it('keeps names with an answer of their own', () => {
    expect(answersLikeWildcard(['A 192.0.2.50', 'A 192.0.2.60'], wildcard)).toBe(false);
    expect(answersLikeWildcard(['CNAME edge.example.net'], wildcard)).toBe(false);
  });
});

describe('ObservationCollector', () => {
  it('keeps accepted names once per source with the time first seen', () => {
    let clock = 0;
    const collector = new ObservationCollector('example.com', () => new Date(++clock));

    expect(collector.add('WWW.example.com.', 'dns')).toBe('www.example.com');
    expect(collector.add('www.example.com', 'dns')).toBe('www.example.com');
    collector.add('www.example.com', 'wordlist');
    expect(collector.add('other.test', 'dns')).toBeNull();

    expect(collector.finish()).toEqual([
      { name: 'www.example.com', source: 'dns', seenAt: new Date(1) },
      { name: 'www.example.com', source: 'wordlist', seenAt: new Date(2) },
    ]);
  });

  it('ignores names added after the pass finished', () => {
    const collector = new ObservationCollector('example.com');
    const result = collector.finish();
    collector.add('late.example.com', 'dns');

    expect(result).toEqual([]);
    expect(collector.finish()).toEqual([]);
  });
});

describe('SUBDOMAIN_WORDLIST', () => {
  it('has a few hundred distinct, valid, lowercase labels, starting with the commonest', () => {
    expect(SUBDOMAIN_WORDLIST.length).toBeGreaterThanOrEqual(300);
    expect(new Set(SUBDOMAIN_WORDLIST).size).toBe(SUBDOMAIN_WORDLIST.length);
    for (const label of SUBDOMAIN_WORDLIST) expect(label).toMatch(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/);
    expect(SUBDOMAIN_WORDLIST[0]).toBe('www');
    expect(SUBDOMAIN_WORDLIST).toEqual(expect.arrayContaining(['mail', 'api', 'dev', 'staging', 'vpn']));
  });
});

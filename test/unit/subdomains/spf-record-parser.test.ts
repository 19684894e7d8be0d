import { isSpfRecord, parseSpfRecord } from '../../../src/subdomains/spf-record-parser';

describe('SPF record parsing', () => {
  it('recognises SPF records only', () => {
    expect(isSpfRecord('v=spf1 -all')).toBe(true);
    expect(isSpfRecord('V=SPF1 include:a.example.com ~all')).toBe(true);
    expect(isSpfRecord('v=spf10 -all')).toBe(false);
    expect(isSpfRecord('google-site-verification=abc')).toBe(false);
  });

  it('separates policies to follow from hosts named directly', () => {
    const record =
      'v=spf1 ip4:192.0.2.0/24 a mx include:_spf.example.com ~include:spf.vendor.test a:web.example.com/24 ' +
      'mx:mail.example.com exists:%{i}.x.example.com ptr -all redirect=_spf2.example.com';

    expect(parseSpfRecord(record)).toEqual({
      policies: ['_spf.example.com', 'spf.vendor.test', '_spf2.example.com'],
      hosts: ['web.example.com', 'mail.example.com', '%{i}.x.example.com'],
    });
  });
});

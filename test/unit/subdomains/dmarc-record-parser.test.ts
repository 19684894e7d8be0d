import { dmarcReportHosts, isDmarcRecord } from '../../../src/subdomains/dmarc-record-parser';

describe('DMARC record parsing', () => {
  it('recognises DMARC records only', () => {
    expect(isDmarcRecord('v=DMARC1; p=none')).toBe(true);
    expect(isDmarcRecord('v=DMARC1')).toBe(true);
    expect(isDmarcRecord('v=spf1 -all')).toBe(false);
  });

  it('reads the hosts of rua and ruf mailto addresses, ignoring size limits and other tags', () => {
    const record =
      'v=DMARC1; p=reject; rua=mailto:agg@reports.example.com!10m, mailto:x@vendor.test; ' +
      'ruf = MAILTO:forensic@Forensics.Example.com; pct=100; fo=1; rua=https://not-mail.example.com';

    expect(dmarcReportHosts(record)).toEqual(['reports.example.com', 'vendor.test', 'Forensics.Example.com']);
  });

  it('skips addresses without a host', () => {
    expect(dmarcReportHosts('v=DMARC1; rua=mailto:nobody; ruf=')).toEqual([]);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SiteEntity, SiteTechnologyEntity } from '../../../src/storage/entities';
import { CompanySite, startCompanySite } from '../../helpers/company-site';
import { DnsTestServer } from '../../helpers/dns-test-server';
import { writeMmdb } from '../../helpers/mmdb-writer';
import { SmtpTestServer } from '../../helpers/smtp-test-server';
import { AnalysisKit, startAnalysisKit } from '../analysis-api/analysis-test-kit';

/**
 * What Lookup v2's end-to-end tests run against: the analysis kit (service, test sites, callback
 * receivers, contract checks) plus the Acme company site served as http://localhost:PORT (so its
 * host name has DNS facts), a DNS server on loopback with Acme's SPF and DMARC records and the MX
 * of its mail domain, a mail server that accepts info@ and refuses other recipients, and a GeoIP
 * database that places 127.0.0.0/8 in Berlin.
 */
export interface LookupKit extends AnalysisKit {
  company: CompanySite;
  /** "http://localhost:PORT/" */
  companyUrl: string;
  dns: DnsTestServer;
  smtp: SmtpTestServer;
}

export async function startLookupKit(settings: Record<string, string> = {}): Promise<LookupKit> {
  const dir = mkdtempSync(join(tmpdir(), 'lookup-v2-'));
  const geoip = join(dir, 'loopback.mmdb');
  writeFileSync(geoip, writeMmdb([{ cidr: '127.0.0.0/8', data: { country_code: 'DE', state1: 'Berlin' } }]));
  const [company, dns] = await Promise.all([startCompanySite(), DnsTestServer.start()]);
  dns.zone(
    `
    @       IN TXT "v=spf1 include:_spf.mail.test -all"
    _dmarc  IN TXT "v=DMARC1; p=quarantine"
    `,
    'localhost',
  );
  const smtp = await SmtpTestServer.start({
    rcpt: (address) =>
      address.startsWith('info@') ? 'accept' : { code: 550, message: '5.1.1 Recipient address rejected' },
  });
  dns.add('acme-robotics.de', 'MX', '10 mx.acme-robotics.de').add('mx.acme-robotics.de', 'A', '127.0.0.1');
  const kit = await startAnalysisKit({
    GEOIP_DATABASE_PATH: geoip,
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: '1000',
    FETCH_TLS_VERIFY: 'false',
    FETCH_TIMEOUT_MS: '5000',
    VERIFY_SMTP_PORT: String(smtp.port),
    VERIFY_CONNECT_TIMEOUT_MS: '2000',
    VERIFY_REPLY_TIMEOUT_MS: '2000',
    VERIFY_TIMEOUT_MS: '8000',
    VERIFY_DOMAIN_INTERVAL_MS: '0',
    // The tests age stored results on purpose: the freshness scheduler must not re-analyse them meanwhile.
    RECRAWL_AFTER_DAYS: '0',
    ...settings,
  });
  const close = kit.close;
  return {
    ...kit,
    company,
    companyUrl: `http://localhost:${company.port}/`,
    dns,
    smtp,
    async close() {
      await close();
      await Promise.all([company.close(), dns.close(), smtp.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Moves a site's stored result `months` months into the past (its analysis and its technologies). */
export async function ageSite(kit: AnalysisKit, hostname: string, months: number): Promise<void> {
  const { manager } = kit.service.running.services.db;
  const at = new Date();
  at.setUTCMonth(at.getUTCMonth() - months);
  const site = await manager.findOneByOrFail(SiteEntity, { hostname });
  await manager.update(SiteEntity, { id: site.id }, { lastAnalyzedAt: at });
  await manager.update(SiteTechnologyEntity, { siteId: site.id }, { confirmedAt: at });
}

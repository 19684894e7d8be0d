import type { SiteContext } from './site-context';
import type { SecuritySet } from './site-enrichment';

/**
 * security: the certificate of the site's https connection (issuer, negotiated protocol, expiry in
 * UNIX seconds), whether the site answered over https, and whether its domain publishes an SPF
 * record (a TXT "v=spf1", RFC 7208) and a DMARC record (_dmarc TXT "v=DMARC1", RFC 7489). The DNS
 * facts are absent when DNS was not asked (a site on an IP address).
 */
export function extractSecurity(context: SiteContext): SecuritySet {
  const out: SecuritySet = {};
  const { certificate, dns } = context.input;
  let https: boolean | undefined;
  try {
    https = new URL(context.home?.doc.url ?? context.input.siteUrl).protocol === 'https:';
  } catch {
    https = undefined;
  }
  if (https !== undefined) out.https = https;
  if (https && certificate?.issuer) {
    const validTo = Date.parse(certificate.validTo);
    out.certInfo = {
      issuer: certificate.issuer,
      ...(certificate.protocol ? { protocol: certificate.protocol } : {}),
      ...(Number.isFinite(validTo) ? { validTo: Math.floor(validTo / 1000) } : {}),
    };
  }
  if (dns) {
    out.dns = {
      spf: dns.txt.some((record) => /^\s*v=spf1(\s|$)/i.test(record)),
      dmarc: dns.dmarc.some((record) => /^\s*v\s*=\s*DMARC1\s*(;|$)/i.test(record)),
    };
  }
  return out;
}

import type { TLSSocket } from 'node:tls';

/** What the service keeps of a site's TLS certificate. */
export interface CertificateFacts {
  /** Issuer organisation, else common name (what certIssuer fingerprints match, e.g. "Let's Encrypt"). */
  issuer: string;
  subject: string;
  /** DNS names of the subjectAltName extension, lowercased, wildcards kept ("*.example.com"). */
  subjectAltNames: string[];
  /** Expiry as an ISO date, for display. */
  validTo: string;
  /** TLS version negotiated on the connection that presented the certificate ("TLSv1.3"); '' when unknown. */
  protocol: string;
}

/** Reads the peer certificate of a connected TLS socket; undefined when there is none. */
export function certificateFacts(socket: TLSSocket): CertificateFacts | undefined {
  const certificate = socket.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  const issuer = firstOf(certificate.issuer?.O) ?? firstOf(certificate.issuer?.CN) ?? '';
  const validTo = new Date(certificate.valid_to);
  return {
    issuer,
    subject: firstOf(certificate.subject?.CN) ?? '',
    subjectAltNames: parseSubjectAltNames(certificate.subjectaltname),
    validTo: Number.isNaN(validTo.getTime()) ? '' : validTo.toISOString(),
    protocol: socket.getProtocol() ?? '',
  };
}

/** Node gives subjectaltname as 'DNS:a.example, DNS:*.example, IP Address:1.2.3.4'. */
export function parseSubjectAltNames(subjectAltName: string | undefined): string[] {
  const names = new Set<string>();
  for (const entry of (subjectAltName ?? '').split(',')) {
    const match = /^\s*DNS:(.+?)\s*$/.exec(entry);
    if (match) names.add(match[1].toLowerCase());
  }
  return [...names];
}

/** Certificate name fields are a string, or an array when the attribute repeats. */
function firstOf(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

export function isDmarcRecord(text: string): boolean {
  return /^v=DMARC1\s*(;|$)/i.test(text.trim());
}

/**
 * Hosts of the aggregate (`rua`) and failure (`ruf`) report addresses of a DMARC record
 * (RFC 7489 §6.3), e.g. `rua=mailto:dmarc@reports.example.com!10m` → `reports.example.com`.
 */
export function dmarcReportHosts(text: string): string[] {
  const hosts: string[] = [];
  for (const tag of text.split(';')) {
    const equals = tag.indexOf('=');
    const key = tag.slice(0, equals).trim();
    const value = tag.slice(equals + 1).trim();
    if (equals < 0 || !/^ru[af]$/i.test(key)) continue;
    for (const uri of value.split(',')) {
      const address = /^mailto:([^!]+)/i.exec(uri.trim())?.[1];
      const at = address?.lastIndexOf('@') ?? -1;
      if (address && at > 0) hosts.push(address.slice(at + 1));
    }
  }
  return hosts;
}

import { getDomain } from 'tldts';

/** Headers whose values name other hosts of the site's ecosystem. */
const CSP_HEADERS = ['content-security-policy', 'content-security-policy-report-only'];
const MAX_HOSTNAMES = 5000;

/**
 * Collects the host names a page reveals, for the subdomain finder and the index: only names with a
 * registrable domain are kept (no IP literals, no "localhost"), lowercased, without a trailing dot;
 * a certificate's "*.example.com" counts as example.com.
 */
export class HostnameCollector {
  private readonly names = new Set<string>();

  add(candidate: string | undefined): void {
    if (!candidate || this.names.size >= MAX_HOSTNAMES) return;
    const name = candidate.trim().toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
    if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(name) || getDomain(name) === null) return;
    this.names.add(name);
  }

  addUrl(url: string | undefined): void {
    if (!url) return;
    try {
      this.add(new URL(url).hostname);
    } catch {
      // not a URL: nothing to learn from it
    }
  }

  /** Hosts named by CSP source lists, Access-Control-Allow-Origin and Link headers. */
  addFromHeaders(headers: Record<string, string[]>): void {
    for (const name of CSP_HEADERS) {
      for (const policy of headers[name] ?? []) {
        for (const token of policy.split(/[\s;]+/)) this.add(cspSourceHost(token));
      }
    }
    for (const origin of headers['access-control-allow-origin'] ?? []) this.addUrl(origin);
    for (const link of headers['link'] ?? []) {
      for (const match of link.matchAll(/<([^>]+)>/g)) this.addUrl(match[1]);
    }
  }

  values(): string[] {
    return [...this.names].sort();
  }
}

/** "https://*.cdn.example.com:443/path" → "*.cdn.example.com"; keywords, nonces and schemes → undefined. */
function cspSourceHost(token: string): string | undefined {
  if (token === '' || token.startsWith("'") || /^[a-z][a-z0-9+.-]*:$/i.test(token)) return undefined;
  const withoutScheme = token.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const host = withoutScheme.split(/[/:]/)[0];
  return host.includes('.') ? host : undefined;
}

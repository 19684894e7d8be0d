/** Host names an SPF record (RFC 7208) refers to. */
export interface SpfReferences {
  /** `include:` and `redirect=` targets: further SPF records to read. */
  policies: string[];
  /** `a:`, `mx:` and `exists:` targets: hosts named directly. */
  hosts: string[];
}

export function isSpfRecord(text: string): boolean {
  return /^v=spf1(\s|$)/i.test(text.trim());
}

/**
 * Reads the domain-spec of each mechanism and modifier. Terms whose domain-spec uses macros
 * (`%{i}._spf.example.com`) are kept as written; the name rules reject them later.
 */
export function parseSpfRecord(text: string): SpfReferences {
  const references: SpfReferences = { policies: [], hosts: [] };
  for (const term of text.trim().split(/\s+/).slice(1)) {
    const match = /^[+?~-]?(include|a|mx|exists):([^/]+)|^(redirect)=(.+)$/i.exec(term);
    if (!match) continue;
    const mechanism = (match[1] ?? match[3]).toLowerCase();
    const target = match[2] ?? match[4];
    if (mechanism === 'include' || mechanism === 'redirect') references.policies.push(target);
    else references.hosts.push(target);
  }
  return references;
}

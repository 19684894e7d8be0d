/**
 * The synthetic web's hosts: a ranked list of `s00001.test`, `s00002.test`, … each with its own
 * loopback address (127.1.x.y and up; Linux routes all of 127/8 to the machine) and a behaviour
 * drawn from fixed shares, spread over the ranks so that every stretch of the list has a mix.
 * ".test" is reserved (RFC 6761) and, outside the public-suffix list, each name is its own
 * registrable domain, as `sites:import` requires for one site per line.
 */
export const BEHAVIOURS = [
  // A site the crawler can read: a front page from the corpus, an about and a contact page.
  ['healthy', 68],
  // Every answer starts after SLOW_MS.
  ['slow', 5],
  // Accepts the connection and never answers: the fetch timeout ends it.
  ['timeout', 1],
  // Resets the connection on every request.
  ['reset', 2],
  // The front page redirects to another (healthy) host of the list.
  ['redirect-host', 3],
  // The front page redirects to a private address (10.0.0.1 or 192.168.1.1).
  ['redirect-private', 2],
  ['http-404', 3],
  // 429 and 503 with Retry-After.
  ['http-429', 2],
  ['http-500', 2],
  ['http-503', 2],
  // The front page is larger than FETCH_MAX_BODY_BYTES.
  ['huge', 1],
  // The front page is JSON.
  ['non-html', 2],
  // robots.txt disallows everything: only the front page may be fetched.
  ['robots-forbid', 3],
  // The name does not exist (NXDOMAIN), as many entries of a real top list.
  ['nxdomain', 2],
  // The name resolves, nothing listens (connection refused on both ports).
  ['refused', 2],
] as const;

export type Behaviour = (typeof BEHAVIOURS)[number][0];

export interface SyntheticHost {
  /** 0-based; the rank is index + 1. */
  index: number;
  name: string;
  address: string;
  behaviour: Behaviour;
}

export function hostName(index: number): string {
  return `s${String(index + 1).padStart(5, '0')}.test`;
}

/** Host index of a name of the list, or undefined. */
export function hostIndexOf(name: string): number | undefined {
  const match = /^s(\d{5,})\.test\.?$/i.exec(name);
  return match ? Number(match[1]) - 1 : undefined;
}

/** 127.1.0.1, 127.1.0.2, … 250 hosts per /24, 250 /24s per second octet (62,500 per octet). */
export function hostAddress(index: number): string {
  const perOctet = 250 * 250;
  return `127.${1 + Math.floor(index / perOctet)}.${Math.floor(index / 250) % 250}.${1 + (index % 250)}`;
}

/** The behaviour of the host at this index: a fixed permutation of 100 slots, so shares hold exactly per 100 ranks. */
export function behaviourOf(index: number): Behaviour {
  const slot = (index * 37 + 11) % 100;
  let upTo = 0;
  for (const [behaviour, share] of BEHAVIOURS) {
    upTo += share;
    if (slot < upTo) return behaviour;
  }
  return 'healthy';
}

export function hostCatalogue(count: number): SyntheticHost[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    name: hostName(index),
    address: hostAddress(index),
    behaviour: behaviourOf(index),
  }));
}

/** The healthy host a redirect-host entry sends its visitors to (the next healthy one of the list). */
export function redirectTarget(hosts: readonly SyntheticHost[], from: number): SyntheticHost {
  for (let step = 1; step < hosts.length; step++) {
    const candidate = hosts[(from + step) % hosts.length];
    if (candidate.behaviour === 'healthy') return candidate;
  }
  return hosts[from];
}

import { addCapped, LIMITS, nonEmpty } from './limits';
import type { SiteContext } from './site-context';
import type { SocialNetwork, SocialSet } from './site-enrichment';
import { textOf, valuesOf } from './structured-data';

interface NetworkRule {
  network: SocialNetwork;
  hosts: RegExp;
  /** Reads the handle from the path; undefined for paths that are not a profile. */
  handle(path: string[], url: URL): string | undefined;
}

/** Path words that are the network's own pages (sharing, login, help), never a profile. */
const NOT_PROFILES = new Set([
  'share',
  'sharer',
  'sharer.php',
  'intent',
  'home',
  'login',
  'signup',
  'search',
  'hashtag',
  'i',
  'explore',
  'dialog',
  'plugins',
  'tr',
  'privacy',
  'policies',
  'help',
  'about',
  'settings',
  'legal',
  'watch',
  'embed',
  'results',
  'feed',
  'shareArticle',
  'sharing',
  'pin',
  'p',
  'reel',
  'tv',
  'stories',
  'events',
  'groups',
  'marketplace',
  'gaming',
  'notifications',
  'messages',
  'tos',
  'terms',
  'features',
  'pricing',
  'sponsors',
  'orgs',
  'topics',
  'collections',
  'trending',
  'marketplace',
  'apps',
  'download',
  'business',
  'ads',
]);

const profile = (segment: string | undefined): string | undefined =>
  segment && !NOT_PROFILES.has(segment.toLowerCase()) && /^@?[\p{L}\p{N}._-]{1,100}$/u.test(segment)
    ? segment
    : undefined;

const RULES: NetworkRule[] = [
  {
    network: 'twitter',
    hosts: /^(?:(?:www|mobile)\.)?(?:twitter|x)\.com$/,
    handle: ([first]) => (first && /^[A-Za-z0-9_]{1,15}$/.test(first) ? profile(first) : undefined),
  },
  {
    network: 'facebook',
    hosts: /^(?:(?:www|m|web|business)\.)?(?:facebook|fb)\.com$/,
    handle: (path, url) =>
      path[0] === 'profile.php'
        ? (url.searchParams.get('id') ?? undefined)
        : path[0] === 'pages'
          ? profile(path[2] ?? path[1])
          : profile(path[0]),
  },
  {
    network: 'linkedin',
    hosts: /^(?:[a-z]{2,3}\.)?linkedin\.com$/,
    handle: ([kind, name]) =>
      kind && ['company', 'in', 'school', 'showcase'].includes(kind) && profile(name)
        ? `${kind}/${name}`
        : undefined,
  },
  { network: 'instagram', hosts: /^(?:www\.)?instagram\.com$/, handle: ([first]) => profile(first) },
  {
    network: 'github',
    hosts: /^(?:www\.)?github\.com$/,
    handle: ([first]) => (first && /^[A-Za-z0-9-]{1,39}$/.test(first) ? profile(first) : undefined),
  },
  {
    network: 'youtube',
    hosts: /^(?:(?:www|m)\.)?youtube\.com$/,
    handle: ([first, second]) =>
      first?.startsWith('@')
        ? profile(first)
        : first && ['channel', 'user', 'c'].includes(first) && profile(second)
          ? `${first}/${second}`
          : undefined,
  },
  {
    network: 'tiktok',
    hosts: /^(?:www\.)?tiktok\.com$/,
    handle: ([first]) => (first?.startsWith('@') ? profile(first) : undefined),
  },
  {
    network: 'pinterest',
    hosts: /^(?:[a-z]{2,3}\.)?pinterest\.(?:com|[a-z]{2})(?:\.[a-z]{2})?$/,
    handle: ([first]) => profile(first),
  },
  {
    network: 'xing',
    hosts: /^(?:www\.)?xing\.com$/,
    handle: ([kind, name]) =>
      kind && ['pages', 'companies', 'profile'].includes(kind) && profile(name)
        ? `${kind}/${name}`
        : undefined,
  },
  {
    network: 'vimeo',
    hosts: /^(?:www\.)?vimeo\.com$/,
    handle: ([first]) => (first && !/^\d+$/.test(first) ? profile(first) : undefined),
  },
];

/** Mastodon profiles live on many servers: recognised by the "/@user" path on a host named like one. */
const MASTODON_HOST =
  /^(?:mastodon\.[a-z.]+|[a-z0-9-]+\.social|mstdn\.[a-z.]+|fosstodon\.org|hachyderm\.io|infosec\.exchange)$/;

/** A word every host of RULES and MASTODON_HOST holds, as written in a URL or in other case. */
const NETWORK_HOST_WORD =
  /(?:twitter|x|facebook|fb|linkedin|instagram|github|youtube|tiktok|xing|vimeo)\.com|pinterest\.|mastodon\.|\.social|mstdn\.|fosstodon\.org|hachyderm\.io|infosec\.exchange/i;
/**
 * Printable ASCII without "%": the URL parser takes such a URL's host as written, only lowercased
 * (no percent-decoding, no IDNA mapping, no tab or newline stripped from it).
 */
const HOST_AS_WRITTEN = /^[\x21-\x24\x26-\x7e]*$/;

/** The network and handle of a profile URL; undefined for other URLs (share and intent links included). */
export function socialProfileOf(raw: string): { network: SocialNetwork; handle: string } | undefined {
  // Most links of a page go elsewhere: a URL whose host is as written and names no network is not
  // parsed at all.
  const trimmed = raw.trim();
  if (HOST_AS_WRITTEN.test(trimmed) && !NETWORK_HOST_WORD.test(trimmed)) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const host = url.hostname.toLowerCase();
  const path = url.pathname
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
  for (const rule of RULES) {
    if (!rule.hosts.test(host)) continue;
    const handle = rule.handle(path, url);
    return handle ? { network: rule.network, handle } : undefined;
  }
  if (MASTODON_HOST.test(host) && path.length === 1 && /^@[A-Za-z0-9_]{1,30}$/.test(path[0])) {
    return { network: 'mastodon', handle: `${path[0]}@${host}` };
  }
  return undefined;
}

/** An absolute link, with or without its scheme (compiled once: a literal in the loop is a new RegExp per link). */
const ABSOLUTE_HREF = /^\s*(?:https?:)?\/\//i;
const PROTOCOL_RELATIVE = /^\/\//;

/**
 * social: profile handles from the links of every page and the `sameAs` of the structured data.
 * Share, intent and login links are not profiles and are dropped. LinkedIn and XING handles keep
 * their kind ("company/acme", "in/jane-doe"), YouTube legacy ones too ("channel/UC..."), Mastodon
 * handles their server ("@acme@mastodon.social").
 */
export function extractSocial(context: SiteContext): SocialSet {
  const found = new Map<SocialNetwork, Set<string>>();
  const add = (url: string): void => {
    const profileFound = socialProfileOf(url);
    if (!profileFound) return;
    const handles = found.get(profileFound.network) ?? new Set<string>();
    found.set(profileFound.network, handles);
    if (![...handles].some((handle) => handle.toLowerCase() === profileFound.handle.toLowerCase()))
      addCapped(handles, profileFound.handle, LIMITS.values);
  };
  for (const node of context.nodes) {
    for (const value of valuesOf(node.props, 'sameAs').slice(0, 30)) {
      const text = textOf(value);
      if (text) add(text);
    }
  }
  for (const page of context.pages) {
    for (const anchor of page.doc.anchors) {
      if (ABSOLUTE_HREF.test(anchor.href)) add(anchor.href.trim().replace(PROTOCOL_RELATIVE, 'https://'));
    }
  }
  const out: SocialSet = {};
  for (const [network, handles] of found) {
    const list = nonEmpty(handles);
    if (list) out[network] = list;
  }
  return out;
}

import { readCorpus, type CorpusSite } from '../corpus/corpus-format';

/**
 * The pages of the synthetic web, from the corpus of pages produced by real software
 * (test/corpus/sites): each host takes one corpus site's front page (its markup, scripts and
 * response headers, so that detection has real software to find), with its own title, its links
 * to the corpus site's paths cut (they would lead nowhere here) and a navigation to the host's own
 * about and contact pages, which carry what the enrichment reads (company, email, phone, address).
 * Templates are made once; a request only joins strings.
 */
export interface PageTemplate {
  /** The HTML cut around the title and before </body>. */
  beforeTitle: string;
  afterTitleBeforeNav: string;
  afterNav: string;
  title: string;
  headers: Record<string, string[]>;
  /** Script bodies by path, as the corpus site served them. */
  scripts: Map<string, string>;
}

/** Headers not copied from the capture: about the transfer, not the software. */
const TRANSFER_HEADERS = new Set([
  'date',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'etag',
  'last-modified',
  'vary',
  'accept-ranges',
  'age',
  'expires',
  'cache-control',
]);

function templateOf(site: CorpusSite, pageIndex: number): PageTemplate {
  const input = site.inputs[pageIndex];
  let html = input.html.replace(/(<a\b[^>]*?\shref\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)/gi, '$1"#"');
  const titleMatch = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  let title = site.site.product;
  if (titleMatch) {
    title = titleMatch[1].trim().slice(0, 80) || title;
    html = html.slice(0, titleMatch.index) + '\u0000' + html.slice(titleMatch.index + titleMatch[0].length);
  } else {
    const head = /<head[^>]*>/i.exec(html);
    const at = head ? head.index + head[0].length : 0;
    html = html.slice(0, at) + '\u0000' + html.slice(at);
  }
  const bodyEnd = html.search(/<\/body>/i);
  const navAt = bodyEnd >= 0 ? bodyEnd : html.length;
  const [beforeTitle, rest] = html.split('\u0000');
  const navInRest = Math.max(0, navAt - beforeTitle.length - 1);
  const headers: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(input.headers ?? {}))
    if (!TRANSFER_HEADERS.has(name.toLowerCase())) headers[name] = values;
  const scripts = new Map<string, string>();
  const sources = input.scriptSrc ?? [];
  const bodies = input.scripts ?? [];
  if (sources.length === bodies.length)
    sources.forEach((src, i) => {
      try {
        scripts.set(new URL(src).pathname, bodies[i]);
      } catch {
        // not a URL: left to the generic script
      }
    });
  return {
    beforeTitle,
    afterTitleBeforeNav: rest.slice(0, navInRest),
    afterNav: rest.slice(navInRest),
    title,
    headers,
    scripts,
  };
}

export class SitePages {
  private readonly fronts: PageTemplate[];
  private readonly seconds: PageTemplate[];

  constructor() {
    const corpus = readCorpus().filter((site) => site.inputs.length > 0);
    if (corpus.length === 0) throw new Error('the corpus (test/corpus/sites) is missing');
    this.fronts = corpus.map((site) => templateOf(site, 0));
    // The about page: the corpus site's second page when it has one, else its front page again.
    this.seconds = corpus.map((site) => templateOf(site, site.inputs.length > 1 ? 1 : 0));
  }

  get corpusSites(): number {
    return this.fronts.length;
  }

  /** The corpus site a host's pages come from. */
  templateFor(hostIndex: number): PageTemplate {
    return this.fronts[(hostIndex * 7) % this.fronts.length];
  }

  front(hostIndex: number, name: string): string {
    const t = this.templateFor(hostIndex);
    return this.fill(t, `${t.title} | Site ${hostIndex + 1}`, name, hostIndex);
  }

  about(hostIndex: number, name: string): string {
    const t = this.seconds[(hostIndex * 7) % this.seconds.length];
    const company = `Company ${hostIndex + 1} Ltd`;
    const about =
      `<section><h1>About ${company}</h1><p>${company} was founded in ${1990 + (hostIndex % 30)} ` +
      `and employs ${10 + (hostIndex % 500)} people. We build software with care.</p></section>`;
    return this.fill(t, `About us | ${company}`, name, hostIndex, about);
  }

  contact(hostIndex: number, name: string): string {
    const n = String(hostIndex % 10_000).padStart(4, '0');
    return (
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Contact | Site ${hostIndex + 1}</title>` +
      `<meta name="description" content="How to reach Company ${hostIndex + 1} Ltd"></head><body>` +
      `<h1>Contact us</h1><p>Email: <a href="mailto:info@${name}">info@${name}</a></p>` +
      `<p>Sales: sales@${name}</p><p>Phone: <a href="tel:+1415555${n}">+1 415 555 ${n}</a></p>` +
      `<address>Company ${hostIndex + 1} Ltd, ${100 + (hostIndex % 900)} Market Street, San Francisco, CA 94105, USA</address>` +
      `<p><a href="https://twitter.com/site${hostIndex + 1}">Twitter</a> ` +
      `<a href="https://www.linkedin.com/company/site${hostIndex + 1}">LinkedIn</a></p>` +
      `${nav()}<script src="/assets/site.js"></script></body></html>`
    );
  }

  private fill(t: PageTemplate, title: string, name: string, hostIndex: number, extra = ''): string {
    return (
      t.beforeTitle +
      `<title>${escapeHtml(title)}</title>` +
      t.afterTitleBeforeNav +
      extra +
      nav() +
      `<footer>&copy; ${2000 + (hostIndex % 25)} Company ${hostIndex + 1} Ltd &middot; ${name}</footer>` +
      '<script src="/assets/site.js"></script>' +
      t.afterNav
    );
  }
}

function nav(): string {
  return '<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></nav>';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

import { findCopyright, type CopyrightFacts } from './copyright';
import { cleanText, LIMITS, nonEmpty } from './limits';
import { metaValue } from './page-document';
import type { SiteContext } from './site-context';
import type { MetaSet } from './site-enrichment';

/** Each site's copyright, read once: the meta and the company extractors both ask for it. */
const copyrightOfSite = new WeakMap<SiteContext, { facts: CopyrightFacts | undefined }>();

/** The copyright statement: the home page's footer, else the imprint's, else a meta copyright tag. */
export function siteCopyright(context: SiteContext): CopyrightFacts | undefined {
  let read = copyrightOfSite.get(context);
  if (!read) {
    read = { facts: readCopyright(context) };
    copyrightOfSite.set(context, read);
  }
  return read.facts;
}

function readCopyright(context: SiteContext): CopyrightFacts | undefined {
  const ordered = [...(context.home ? [context.home] : []), ...context.pages.filter((page) => !page.isHome)];
  for (const page of ordered) {
    const found = findCopyright(page.doc.text);
    if (found) return found;
  }
  const tag = context.home && cleanText(metaValue(context.home.doc, 'copyright'), 150);
  return tag ? findCopyright(`© ${tag.replace(/^(?:©|\(c\)|copyright)\s*/i, '')}`) : undefined;
}

/** meta: the home page's title, description and viewport; the copyright; schema.org types of every page. */
export function extractMeta(context: SiteContext): MetaSet {
  const out: MetaSet = {};
  const home = context.home?.doc;
  if (home) {
    const title = cleanText(home.title);
    if (title) out.title = title;
    const description = cleanText(metaValue(home, 'description') ?? metaValue(home, 'og:description'));
    if (description) out.description = description;
    // The home page was read: no viewport is a known "not responsive".
    out.responsive = (home.meta.get('viewport') ?? []).some((value) =>
      /width\s*=\s*device-width|initial-scale\s*=/i.test(value),
    );
  }
  const copyright = siteCopyright(context);
  if (copyright) {
    out.copyright = copyright.statement;
    if (copyright.year !== undefined) out.copyrightYear = copyright.year;
  }
  const types = new Set<string>();
  for (const node of context.nodes) {
    for (const type of node.types) if (types.size < LIMITS.schemaOrgTypes) types.add(type);
  }
  const schemaOrgTypes = nonEmpty(types);
  if (schemaOrgTypes) out.schemaOrgTypes = schemaOrgTypes;
  return out;
}

import { withoutCopyrightMarks } from './copyright';
import { siteCopyright } from './meta.extractor';
import { cleanText, LIMITS, nonEmpty } from './limits';
import {
  companySizeOf,
  companyTypeOf,
  industryOfNaics,
  industryOfType,
  isOrganizationType,
} from './organization-types';
import { metaValue } from './page-document';
import { formatLocation, postalAddresses } from './postal-address';
import { isOwnUrl, pagesOfKind, type SiteContext } from './site-context';
import type { CompanySet } from './site-enrichment';
import { firstText, isRecord, textOf, valuesOf, type SchemaNode } from './structured-data';

/**
 * The organisation the site is about: among the nodes of an organisation type, the one whose url
 * or @id is on the site, found on the home page, with the most company facts, first found.
 */
export function mainOrganization(context: SiteContext): SchemaNode | undefined {
  let best: SchemaNode | undefined;
  let bestScore = -1;
  const homeUrl = context.home?.doc.url;
  for (const node of context.nodes) {
    if (!node.types.some(isOrganizationType)) continue;
    const url = firstText(node.props, 'url') ?? firstText(node.props, '@id');
    let score = 0;
    if (url && isOwnUrl(context, url)) score += 4;
    if (node.pageUrl === homeUrl) score += 2;
    for (const property of ['legalName', 'address', 'foundingDate', 'numberOfEmployees', 'sameAs', 'logo'])
      if (node.props[property] !== undefined) score += 1;
    if (!firstText(node.props, 'name') && !firstText(node.props, 'legalName')) score -= 10;
    if (score > bestScore) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

/** Legal forms that mark a text as a company name ("Beispiel GmbH", "Acme Ltd."). */
const LEGAL_FORM =
  /\b(?:GmbH(?: & Co\.? KG)?|AG|UG(?: \(haftungsbeschränkt\))?|KG|OHG|e\.\s?K\.|e\.\s?V\.|Ltd\.?|Limited|LLC|L\.L\.C\.|Inc\.?|Corp\.?|Corporation|PLC|plc|S\.?A\.?S?|SARL|S\.?r\.?l\.?|S\.?L\.?|B\.?V\.?|N\.?V\.?|AB|ApS|A\/S|Oy|AS|Sp\. z o\.o\.|s\.r\.o\.|Pty\.? Ltd\.?|GbR|PartG|SE)(?=$|[\s,.)])/;

/** An imprint's first named company ("Angaben gemäß § 5 DDG: Beispiel GmbH", or its first line with a legal form). */
function imprintCompany(context: SiteContext): string | undefined {
  for (const page of pagesOfKind(context, 'imprint', 'contact')) {
    const lines = page.doc.text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(0, 400);
    for (const line of lines) {
      if (line.length > 120 || /gericht|register|court|\bhrb?\b|ust-?id|vat/i.test(line)) continue;
      const after = /(?:angaben gem(?:ä|ae)ß|information (?:according|pursuant) to)[^:]{0,40}:\s*(.+)$/i.exec(
        line,
      )?.[1];
      const candidate = after ?? line;
      const match = LEGAL_FORM.exec(candidate);
      if (match && /\p{L}{2,}/u.test(candidate.slice(0, match.index).replace(/^.*?:\s*/, ''))) {
        const name = cleanText(candidate.slice(0, match.index + match[0].length).replace(/^.*?:\s*/, ''), 80);
        if (name && name.split(' ').length <= 8) return name;
      }
    }
  }
  return undefined;
}

/** The title segment that names the site ("Products | Acme Robotics" on acme-robotics.com → "Acme Robotics"). */
function titleCompany(context: SiteContext): string | undefined {
  const title = context.home?.doc.title;
  const label = context.domainLabel?.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (!title || !label) return undefined;
  for (const segment of title.split(/\s+[|–—·:»-]\s+/)) {
    const compact = segment.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (
      compact.length >= 2 &&
      (compact === label || (compact.length >= 4 && label.includes(compact)) || compact.includes(label))
    )
      return cleanText(segment, 80);
  }
  return undefined;
}

/** "acme-robotics" → "Acme Robotics". */
function domainCompany(context: SiteContext): string | undefined {
  const label = context.domainLabel;
  if (!label || /^\d+$/.test(label) || label.startsWith('xn--')) return undefined;
  return label
    .split(/[-_]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}

function employeeCount(value: unknown): number | undefined {
  const numberOf = (raw: unknown): number | undefined => {
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : undefined;
    const digits = text?.replace(/[\s,.'’]/g, '').match(/^\d{1,7}/)?.[0];
    return digits ? Number(digits) : undefined;
  };
  if (isRecord(value)) {
    const exact = numberOf(value.value);
    if (exact !== undefined) return exact;
    const min = numberOf(value.minValue);
    const max = numberOf(value.maxValue);
    if (min !== undefined && max !== undefined) return Math.round((min + max) / 2);
    return min ?? max;
  }
  return numberOf(value);
}

function foundingYear(value: string | undefined, now = new Date()): number | undefined {
  const year = value ? Number(/\b(1[5-9]\d\d|20\d\d)\b/.exec(value)?.[1]) : NaN;
  return Number.isInteger(year) && year <= now.getUTCFullYear() ? year : undefined;
}

/** company: the main organisation's structured data, with the guesses clearly apart. */
export function extractCompany(context: SiteContext): CompanySet {
  const out: CompanySet = {};
  const organization = mainOrganization(context);
  const props = organization?.props ?? {};
  const name = cleanText(firstText(props, 'legalName') ?? firstText(props, 'name'), 120);
  const siteName = context.home && cleanText(metaValue(context.home.doc, 'og:site_name'), 120);
  if (name ?? siteName) out.companyName = name ?? siteName;

  const inferred =
    imprintCompany(context) ??
    siteCopyright(context)?.holder ??
    titleCompany(context) ??
    domainCompany(context);
  const inferredName = inferred && withoutCopyrightMarks(inferred);
  if (inferredName) out.inferredCompanyName = inferredName;

  const industry =
    cleanText(firstText(props, 'industry'), 120) ??
    valuesOf(props, 'naics')
      .map((code) => industryOfNaics(textOf(code) ?? ''))
      .find(Boolean) ??
    organization?.types.map(industryOfType).find(Boolean) ??
    context.nodes
      .flatMap((node) => (node.types.some(isOrganizationType) ? node.types : []))
      .map(industryOfType)
      .find(Boolean);
  if (industry) out.industry = industry;

  const about =
    cleanText(firstText(props, 'description'), LIMITS.fieldChars) ??
    pagesOfKind(context, 'about')
      .map((page) => cleanText(metaValue(page.doc, 'description') ?? metaValue(page.doc, 'og:description')))
      .find(Boolean);
  if (about) out.about = about;

  const employees = valuesOf(props, 'numberOfEmployees')
    .map(employeeCount)
    .find((count) => count !== undefined);
  const size = employees === undefined ? undefined : companySizeOf(employees);
  if (size) out.companySize = size;

  const type = organization && companyTypeOf(organization.types, props);
  if (type) out.companyType = type;

  const founded = foundingYear(firstText(props, 'foundingDate'));
  if (founded !== undefined) out.companyFounded = founded;

  const locations = nonEmpty(
    postalAddresses(context)
      .map(formatLocation)
      .filter((location): location is string => location !== undefined),
  );
  if (locations) out.locations = locations;
  return out;
}

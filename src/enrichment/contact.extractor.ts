import { cleanText, LIMITS } from './limits';
import { SEGMENTED_KINDS } from './page-kind';
import { pagesOfKind, type SiteContext } from './site-context';
import type { ContactSet, Employee } from './site-enrichment';
import { firstText, isRecord, typesOf, valuesOf } from './structured-data';

/** Words of job titles, in the languages of the index's sites: a text without one is not a title. */
const TITLE_WORDS =
  /\b(?:ceo|cto|cfo|coo|cmo|cio|cpo|vp|svp|evp|founder|co-founder|cofounder|owner|partner|president|chair(?:man|woman|person)?|director|manager|head|lead|chief|officer|engineer|developer|designer|architect|consultant|advisor|adviser|specialist|analyst|executive|principal|associate|assistant|coordinator|administrator|editor|sales|marketing|counsel|attorney|accountant|recruiter|scientist|researcher|professor|teacher|secretary|treasurer|board member|geschäftsführer(?:in)?|gründer(?:in)?|inhaber(?:in)?|vorstand|leiter(?:in)?|leitung|prokurist(?:in)?|mitarbeiter(?:in)?|berater(?:in)?|entwickler(?:in)?|directeur|directrice|gérant|fondateur|fondatrice|responsable|director(?:a)?|gerente|fundador(?:a)?|direttore|fondatore|amministratore)\b/i;

/** A person's name: two to four capitalised words (initials and particles allowed), nothing else. */
const PERSON_NAME =
  /^(?:(?:Dr\.|Prof\.|Mr\.|Ms\.|Mrs\.|Dipl\.-\p{L}+\.)\s+)*\p{Lu}[\p{L}'’-]+(?:\s+(?:\p{Lu}\.|\p{Lu}[\p{L}'’-]+|von|van|de|der|den|da|di|del|la|le|zu)){1,3}$/u;

export function looksLikePersonName(text: string): boolean {
  return text.length <= 60 && PERSON_NAME.test(text) && !TITLE_WORDS.test(text);
}

function looksLikeTitle(text: string): boolean {
  return text.length >= 2 && text.length <= 80 && TITLE_WORDS.test(text) && !/[@]|https?:/.test(text);
}

/** "Geschäftsführer: Max Mustermann, Erika Musterfrau" in an imprint. */
const IMPRINT_ROLE =
  /(Geschäftsführer(?:in)?|Geschäftsführung|Managing Directors?|Vertreten durch|Represented by|Inhaber(?:in)?|Vorstand|CEO|Directeur général|Gérant|Verantwortlich(?: für den Inhalt)?)\s*(?:\([^)]{0,40}\))?\s*:\s*([^\n]{3,160})/gi;

/**
 * contact.employees: people the site names with their role. From schema.org Person nodes with a
 * `jobTitle` (anywhere, including an organisation's employee/founder/member), from team pages
 * where a name is followed by a title (heading or bold name, then its title: the usual team card),
 * and from an imprint's managing directors ("Geschäftsführer: ..."). A name without a title is not
 * listed (the spec's employee has both).
 */
export function extractContacts(context: SiteContext): ContactSet {
  const employees: Employee[] = [];
  const seen = new Set<string>();
  const add = (rawName: unknown, rawTitle: unknown): void => {
    if (employees.length >= LIMITS.employees) return;
    const name = cleanText(rawName, 80);
    const title = cleanText(rawTitle, 120);
    if (!name || !title || !looksLikePersonName(name)) return;
    const key = name.replace(/^(?:(?:Dr|Prof|Mr|Ms|Mrs|Dipl\.-\p{L}+)\.\s+)+/u, '').toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    employees.push({ name, title });
  };

  for (const node of context.nodes) {
    if (node.types.includes('Person')) add(firstText(node.props, 'name'), firstText(node.props, 'jobTitle'));
    for (const property of ['employee', 'employees', 'founder', 'founders', 'member', 'members']) {
      for (const person of valuesOf(node.props, property)) {
        if (!isRecord(person) || typesOf(person['@type']).includes('Person')) continue; // typed persons are nodes already
        add(
          firstText(person, 'name'),
          firstText(person, 'jobTitle') ?? (property.startsWith('founder') ? 'Founder' : undefined),
        );
      }
    }
  }

  for (const page of pagesOfKind(context, ...SEGMENTED_KINDS)) {
    const segments = page.doc.segments;
    for (let i = 0; i + 1 < segments.length && employees.length < LIMITS.employees; i++) {
      const name = segments[i];
      if (!/^(h[2-6]|strong|b|dt|figcaption|span|p|div|a)$/.test(name.tag) || !looksLikePersonName(name.text))
        continue;
      const title = segments[i + 1];
      if (looksLikeTitle(title.text)) {
        add(name.text, title.text);
        i++;
      }
    }
  }

  for (const page of pagesOfKind(context, 'imprint')) {
    for (const match of page.doc.text.slice(0, 50_000).matchAll(IMPRINT_ROLE)) {
      const role = /vertreten|represented/i.test(match[1])
        ? 'Legal representative'
        : match[1].replace(/^Geschäftsführung$/i, 'Geschäftsführer');
      for (const name of match[2].split(/\s*(?:,|;|\bund\b|\band\b|&)\s*/).slice(0, 5)) add(name, role);
    }
  }
  return employees.length > 0 ? { employees } : {};
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnrichmentInput, EnrichmentPage, EnrichmentTechnology } from '../../../src/enrichment';

const ACME = join(__dirname, '../../fixtures/enrichment/acme');
export const ACME_URL = 'https://www.acme-robotics.de';

/** A fixture page of the Acme Robotics site, served at `path`. */
export function acmePage(path: string, file: string): EnrichmentPage {
  return { url: `${ACME_URL}${path}`, html: readFileSync(join(ACME, file), 'utf8') };
}

export const ACME_PAGES: EnrichmentPage[] = [
  acmePage('/', 'home.html'),
  acmePage('/contact/', 'contact.html'),
  acmePage('/impressum/', 'impressum.html'),
  acmePage('/team/', 'team.html'),
  acmePage('/about/', 'about.html'),
];

export const ANALYTICS: EnrichmentTechnology = {
  slug: 'google-analytics',
  name: 'Google Analytics',
  categories: [{ id: 10, slug: 'analytics', name: 'Analytics' }],
  pricing: ['low', 'freemium'],
};

/** A page built from a body (and optional head) for focused cases. */
export function htmlPage(url: string, body: string, head = ''): EnrichmentPage {
  return { url, html: `<!doctype html><html><head>${head}</head><body>${body}</body></html>` };
}

export function input(pages: EnrichmentPage[], extra: Partial<EnrichmentInput> = {}): EnrichmentInput {
  return { siteUrl: pages[0]?.url ?? 'https://example.org/', pages, technologies: [], ...extra };
}

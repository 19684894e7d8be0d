import { z } from 'zod';
import { field } from '../platform/request-schema';
import { IMPORT_FORMATS } from './site-import.service';

/** The importSites mutation's arguments (operators only): the list as text or from a URL. */
export const SiteImportRequest = z.object({
  format: field.choice(IMPORT_FORMATS, {
    required: true,
    description: 'tranco (rank,domain), majestic (the Majestic Million CSV) or plain (one domain a line)',
  }),
  content: field.text({
    maxLength: Number.MAX_SAFE_INTEGER,
    description: 'The list itself, one entry a line (at most IMPORT_MAX_BYTES)',
  }),
  url: field.text({
    maxLength: 2_000,
    description: 'Where to download the list from: http(s) on a host in IMPORT_URL_HOSTS',
  }),
  limit: field.integer({
    min: 1,
    max: 100_000_000,
    description: 'Stop after this many domains',
  }),
  crawl: field.flag({ default: false, description: 'Enqueue a site.index job per domain' }),
});

export type SiteImportInput = z.output<typeof SiteImportRequest>;

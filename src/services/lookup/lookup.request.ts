import { z } from 'zod';
import { ENRICHMENT_SETS } from '../../enrichment';
import { MAX_EMAIL_INPUT_LENGTH } from '../../verify';
import { callbackUrlField, setsField, urlsField } from '../analysis/analysis.request';
import { field } from '../platform/request-schema';

/** GET /v2/lookup/. */
export const LookupV2Request = z.object({
  urls: urlsField('One to ten comma-separated website URLs (one when recursive is false)'),
  live: field.flag({ default: false, description: 'true: analyse now instead of answering from the index' }),
  recursive: field.flag({
    default: true,
    description:
      'true: a site without a stored result (or live=true) is crawled (up to 25 pages) and called back; ' +
      'false: one page is analysed now (one URL only)',
  }),
  callbackUrl: callbackUrlField(false, 'Required when some URL will be answered by callback'),
  sets: setsField(`Field sets: ${ENRICHMENT_SETS.join(', ')}, or all`),
  denoise: field.flag({ default: true, description: 'Leave out results under 50% confidence' }),
  minAge: field.integer({
    min: 0,
    max: 11,
    default: 0,
    rest: 'min_age',
    description: 'Months: a stored result counts only if confirmed at least this long ago',
  }),
  maxAge: field.integer({
    min: 1,
    max: 12,
    default: 2,
    rest: 'max_age',
    description: 'Months: a stored result counts only if confirmed at most this long ago',
  }),
  squash: field.flag({
    default: true,
    description: 'false: [{url, results: [{monthYear, technologies}]}], one entry per month of history',
  }),
  debugEmail: field.text({
    maxLength: MAX_EMAIL_INPUT_LENGTH,
    pattern: /^[^@\s]+@[^@\s]+$/,
    patternText: 'must be an email address',
    rest: 'debug_email',
    description: 'Accepted for compatibility and not used: this service sends no debug mail',
  }),
});

export type LookupV2RequestInput = z.output<typeof LookupV2Request>;

const defaults = LookupV2Request.parse({ urls: ['example.com'] });

/** How a Lookup v2 answer is presented when the request said nothing: the schema's defaults. */
export const LOOKUP_V2_DEFAULTS = {
  denoise: defaults.denoise,
  squash: defaults.squash,
  window: { minAge: defaults.minAge, maxAge: defaults.maxAge },
};

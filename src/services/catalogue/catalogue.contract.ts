import { z } from 'zod';
import { field } from '../platform/request-schema';

const slug = (what: string) =>
  field.text({ maxLength: 200, required: true, description: `The ${what}'s slug` });

export const TechnologyRequest = z.object({ slug: slug('technology') });
export const CategoryRequest = z.object({ slug: slug('category') });

/** A category of a catalogue technology, with its priority. */
const CategoryRefShape = z.strictObject({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  priority: z.number().int().describe('1 is the most significant (CMS, Ecommerce), 10 the least'),
});

/** GET /v2/technologies/{slug}/ (and each item of /v2/technologies/). */
export const CatalogueTechnologyShape = z.strictObject({
  slug: z.string(),
  name: z.string(),
  icon: z.string().describe('Icon file name of the fingerprints (e.g. WordPress.svg)'),
  website: z.string().describe("The technology's website; '' when unknown"),
  cpe: z.string().nullable().describe('CPE 2.3 name, null when the fingerprints have none'),
  categories: z.array(CategoryRefShape),
  versioned: z.boolean().describe('Some pattern of the technology can yield a version'),
  hostnames: z
    .number()
    .int()
    .min(0)
    .describe("Sites of this service's index on which the technology was confirmed in the last 90 days"),
});

/** GET /v2/categories/{slug}/ (and each item of /v2/categories/). */
export const CatalogueCategoryShape = z.strictObject({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  priority: z.number().int().describe('1 is the most significant, 10 the least'),
  technologiesCount: z.number().int().min(0).describe('Technologies of the loaded fingerprints in it'),
  groups: z.array(z.strictObject({ name: z.string(), slug: z.string() })),
});

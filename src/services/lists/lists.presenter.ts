import { z } from 'zod';
import { LIST_STATUSES } from '../../storage/entities/lead-list.entity';
import { project } from '../platform/published-shape';
import { VERSION_OPERATORS } from './lead-list-request';
import type { ListSummaryView, ListView } from './lead-list.service';

/** The Technology object of a list (the spec's "Technology object (inside lists)"). */
const ListTechnologyShape = z.object({
  slug: z.string(),
  name: z.string(),
  categories: z.array(z.object({ slug: z.string().optional(), name: z.string().optional() })),
  operator: z.enum(VERSION_OPERATORS),
  version: z.string().nullable(),
});

const Strings = z.array(z.string());
const Counts = z.record(z.string(), z.number().int());

/** GET /v2/lists/: the summary form. */
export const ListSummaryShape = z.object({
  id: z.string(),
  createdAt: z.number().int(),
  status: z.enum(LIST_STATUSES),
  totalCredits: z.number().int(),
  technologies: z.array(ListTechnologyShape),
  keywords: Strings,
  rows: z.number().int(),
});

/** GET /v2/lists/{id}: the full form; rows and setRows are objects (technology or set → websites). */
export const ListShape = z.object({
  id: z.string(),
  createdAt: z.number().int(),
  status: z.enum(LIST_STATUSES),
  technologies: z.array(ListTechnologyShape),
  keywords: Strings.optional(),
  languages: Strings.optional(),
  countries: Strings.optional(),
  industries: Strings.optional(),
  companySizes: Strings.optional(),
  tlds: Strings.optional(),
  matchCountryLanguage: z.boolean().optional(),
  matchTechnologies: z.string().optional(),
  rootPath: z.boolean().optional(),
  subset: z.number().int().nullable().optional(),
  subsetSlice: z.number().int().optional(),
  subdomains: z.string().optional(),
  minAge: z.number().int().optional(),
  maxAge: z.number().int().optional(),
  fromDate: z.number().int().nullable().optional(),
  requiredSets: Strings.optional(),
  excludeNoTraffic: z.boolean().optional(),
  excludeMultilingual: z.boolean().optional(),
  excludeListId: z.string().nullable().optional(),
  sets: Strings.optional(),
  callbackUrl: z.string().nullable().optional(),
  format: z.string().optional(),
  totalCredits: z.number().int(),
  url: z.string().nullable(),
  sampleUrl: z.string().nullable(),
  rows: Counts,
  setRows: Counts,
  websites: z.number().int().optional(),
  baseListId: z.string().nullable().optional(),
  baseList: ListSummaryShape.nullable().optional(),
  error: z.string().nullable().optional(),
});

/** POST /v2/lists: the new list. */
export const ListCreatedShape = z.object({ id: z.string(), status: z.literal('Calculating') });

/** POST /v2/lists/{id}: the list bought, with the signed link to its ZIP file. */
export const ListFinalizedShape = z.object({
  id: z.string(),
  status: z.literal('Complete'),
  url: z.string(),
});

/** DELETE /v2/lists/{id}: an empty object. */
export const ListDeletedShape = z.strictObject({});

export function toListSummaries(lists: readonly ListSummaryView[]): z.output<typeof ListSummaryShape>[] {
  return lists.map((list) => project(ListSummaryShape, list));
}

/** The full form: the count lists become the published objects (slug → rows, set → rows). */
export function toList(list: ListView): z.output<typeof ListShape> {
  return project(ListShape, {
    ...list,
    rows: Object.fromEntries(list.rows.map((r) => [r.slug, r.rows])),
    setRows: Object.fromEntries(list.setRows.map((r) => [r.set, r.rows])),
  });
}

import { z } from 'zod';
import { field } from '../platform/request-schema';
import { CHANGE_KINDS, ChangeFilterFields, ChangeShape, siteFilterOf } from '../changes/changes.contract';

export const RECRAWL_DAYS_DEFAULT = 7;
export const RECRAWL_DAYS_MAX = 365;
/** Sites one monitor may name (the plan's watchedDomains bounds them all together). */
export const MONITOR_DOMAINS_MAX = 1000;

/** POST /v2/monitors (GraphQL createMonitor(input)). */
export const CreateMonitorRequest = z
  .object({
    domains: field.list(field.item(260).transform(field.parsedBy(siteFilterOf)), {
      max: MONITOR_DOMAINS_MAX,
      description:
        `Up to ${MONITOR_DOMAINS_MAX} sites to watch: a registrable domain (example.com) covers its subdomains' ` +
        'changes too; a host name (shop.example.com, or host:port) only that site. Each is re-analysed at ' +
        'least every recrawlDays',
    }),
    technologies: ChangeFilterFields.technologies,
    categories: ChangeFilterFields.categories,
    kinds: ChangeFilterFields.kinds,
    callbackUrl: field.text({
      maxLength: 2048,
      required: true,
      description: 'Receives each batch of matching changes (a signed POST, retried until accepted)',
    }),
    recrawlDays: field.integer({
      min: 1,
      max: RECRAWL_DAYS_MAX,
      default: RECRAWL_DAYS_DEFAULT,
      description: `Re-analyse the watched sites at least every this many days (1 to ${RECRAWL_DAYS_MAX}, default ${RECRAWL_DAYS_DEFAULT})`,
    }),
  })
  .superRefine((monitor, ctx) => {
    if (!monitor.domains?.length && !monitor.technologies?.length && !monitor.categories?.length)
      ctx.addIssue({
        code: 'custom',
        path: ['domains'],
        message: '{name}, technologies or categories: name at least one site, technology or category',
      });
    // A vulnerability change is about a site the monitor names: over the whole index it would be
    // every affected site (the reverse query and lists answer that).
    if (monitor.kinds?.includes('vulnerability') && !monitor.domains?.length)
      ctx.addIssue({
        code: 'custom',
        path: ['kinds'],
        message: '{name}: vulnerability changes are called back for the sites a monitor names: give domains',
      });
  });
export type CreateMonitorInput = z.output<typeof CreateMonitorRequest>;

/** GET and DELETE /v2/monitors/{id}. */
export const MonitorIdRequest = z.object({
  id: field.integer({ min: 1, max: 2_147_483_647, required: true, description: 'The monitor id' }),
});

export const MonitorShape = z.strictObject({
  id: z.number().int().describe('The monitor id'),
  domains: z
    .array(z.string())
    .describe('The watched sites (index keys: host without www., with a port when given)'),
  technologies: z.array(z.string()).describe('Technology slugs whose changes are called back'),
  categories: z.array(z.string()).describe('Category slugs: changes of any technology in them'),
  kinds: z
    .array(z.enum(CHANGE_KINDS))
    .describe(
      'Kinds of change called back (empty: added, removed and version; vulnerability only when named)',
    ),
  callbackUrl: z.string().describe('Where the batches are sent'),
  recrawlDays: z.number().int().describe('The watched sites are re-analysed at least this often (days)'),
  createdAt: z.number().int().describe('UNIX seconds'),
});

/** GET /v2/monitors/: the account's monitors, oldest first. */
export const MonitorListShape = z.strictObject({ monitors: z.array(MonitorShape) });

/** POST /v2/monitors: the new monitor's id. */
export const MonitorCreatedShape = z.strictObject({ id: z.number().int().describe('The new monitor id') });

/** DELETE /v2/monitors/{id}: an empty object. */
export const MonitorDeletedShape = z.strictObject({});

export const MONITOR_EVENT = 'monitor.changes';

/**
 * The body of a monitor's callback: every change one analysis recorded on one site that matches
 * the monitor (one callback per monitor, site and analysis).
 */
export const MonitorCallbackShape = z.strictObject({
  event: z.literal(MONITOR_EVENT),
  monitorId: z.number().int(),
  domain: z.string().describe('The site (its index key)'),
  at: z.number().int().describe('UNIX seconds of the analysis'),
  changes: z.array(ChangeShape).describe('The matching changes of that analysis, in the order recorded'),
});

/** A monitor as the service returns it. */
export interface MonitorView {
  id: number;
  domains: string[];
  technologies: string[];
  categories: string[];
  kinds: (typeof CHANGE_KINDS)[number][];
  callbackUrl: string;
  recrawlDays: number;
  /** UNIX seconds. */
  createdAt: number;
}

export function toMonitor(monitor: MonitorView): z.output<typeof MonitorShape> {
  return {
    id: monitor.id,
    domains: monitor.domains,
    technologies: monitor.technologies,
    categories: monitor.categories,
    kinds: monitor.kinds,
    callbackUrl: monitor.callbackUrl,
    recrawlDays: monitor.recrawlDays,
    createdAt: monitor.createdAt,
  };
}

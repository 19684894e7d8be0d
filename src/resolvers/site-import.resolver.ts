import { Readable } from 'node:stream';
import { Arg, Ctx, Int, Mutation, Resolver } from 'type-graphql';
import { ForbiddenError, ValidationError } from '../errors';
import { HttpClient } from '../fetch';
import { GraphQLContext, requireCaller } from './context';
import { SiteImportResult } from '../schema/site-import.type';
import { Authenticated } from './guards';
import { fetchOptionsOf } from '../services/services';
import { IMPORT_FORMATS, type ImportFormat } from '../services/site-index/site-import.service';

/**
 * sites:import for operators over GraphQL: the list comes as a string in the request (bounded by
 * IMPORT_MAX_BYTES, like the request body itself) or from a URL on a host listed in
 * IMPORT_URL_HOSTS, downloaded through the guarded client (private addresses refused unless
 * ALLOW_PRIVATE_TARGETS, the DNS_SERVERS resolver, the same size bound).
 */
@Resolver()
export class SiteImportResolver {
  @Mutation(() => SiteImportResult, {
    description:
      'Operators only (OPERATOR_ACCOUNT_IDS): imports a ranked domain list into the index, exactly as ' +
      '`npm run admin -- sites:import`. Give `content` (the file as text, at most IMPORT_MAX_BYTES) or ' +
      '`url` (http(s) on a host in IMPORT_URL_HOSTS), not both. Free of credits.',
  })
  @Authenticated()
  async importSites(
    @Ctx() ctx: GraphQLContext,
    @Arg('format', () => String, { description: 'tranco (default), majestic or plain' })
    format: string,
    @Arg('content', () => String, { nullable: true, description: 'The list itself, one entry a line' })
    content?: string | null,
    @Arg('url', () => String, { nullable: true, description: 'Where to download the list from' })
    url?: string | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Stop after this many domains (≥ 1)' })
    limit?: number | null,
    @Arg('crawl', () => Boolean, { nullable: true, description: 'Enqueue a site.index job per domain' })
    crawl?: boolean | null,
  ): Promise<SiteImportResult> {
    const { config, siteImport } = ctx.services;
    const { principal } = requireCaller(ctx);
    if (principal.isDemo || !config.OPERATOR_ACCOUNT_IDS.includes(String(principal.accountId)))
      throw new ForbiddenError('importSites is for operator accounts (OPERATOR_ACCOUNT_IDS)');
    if (!(IMPORT_FORMATS as readonly string[]).includes(format))
      throw new ValidationError('format', `format must be one of ${IMPORT_FORMATS.join(', ')}`);
    if (limit !== null && limit !== undefined && limit < 1)
      throw new ValidationError('limit', 'limit must be at least 1');
    if (((content ?? null) === null) === ((url ?? null) === null))
      throw new ValidationError('content', 'give either content or url (exactly one)');
    const input = content != null ? fromContent(content, config.IMPORT_MAX_BYTES) : await download(ctx, url!);
    const summary = await siteImport.importRanks(input, {
      format: format as ImportFormat,
      limit: limit ?? undefined,
      crawl: crawl ?? false,
    });
    return summary;
  }
}

function fromContent(content: string, maxBytes: number): Readable {
  if (Buffer.byteLength(content) > maxBytes)
    throw new ValidationError('content', `content is larger than IMPORT_MAX_BYTES (${maxBytes} bytes)`);
  return Readable.from([content]);
}

async function download(ctx: GraphQLContext, url: string): Promise<Readable> {
  const { config } = ctx.services;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('url', 'url must be an absolute http(s) URL');
  }
  if (!['http:', 'https:'].includes(parsed.protocol))
    throw new ValidationError('url', 'url must be an absolute http(s) URL');
  if (!config.IMPORT_URL_HOSTS.includes(parsed.hostname.toLowerCase()))
    throw new ValidationError('url', `url: the host ${parsed.hostname} is not in IMPORT_URL_HOSTS`);
  const client = new HttpClient({ ...fetchOptionsOf(config), maxRedirects: 0 });
  try {
    const response = await client
      .get(parsed.href, { maxBytes: config.IMPORT_MAX_BYTES + 1 })
      .catch((error) => {
        throw new ValidationError('url', `url could not be downloaded: ${(error as Error).message}`);
      });
    if (response.status !== 200)
      throw new ValidationError('url', `url answered HTTP ${response.status}, not 200`);
    if (response.truncated || response.body.length > config.IMPORT_MAX_BYTES)
      throw new ValidationError(
        'url',
        `url: the list is larger than IMPORT_MAX_BYTES (${config.IMPORT_MAX_BYTES} bytes)`,
      );
    return Readable.from([response.body]);
  } finally {
    await client.close();
  }
}

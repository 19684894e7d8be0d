import { Readable } from 'node:stream';
import { ForbiddenError, ValidationError } from '../../errors';
import { HttpClient, type HttpClientOptions } from '../../fetch';
import type { Principal } from '../platform/caller';
import { parseRequest } from '../platform/request-schema';
import { SiteImportRequest } from './site-import.contract';
import type { ImportSummary, SiteImportService } from './site-import.service';

export interface OperatorImportSettings {
  /** OPERATOR_ACCOUNT_IDS: the accounts whose keys may import. */
  operatorAccountIds: readonly string[];
  /** IMPORT_MAX_BYTES: the largest list taken, as text or downloaded. */
  maxBytes: number;
  /** IMPORT_URL_HOSTS: the hosts a list may be downloaded from. */
  urlHosts: readonly string[];
  /** The guarded client's options (private addresses, DNS_SERVERS, timeouts). */
  fetch: HttpClientOptions;
}

/**
 * sites:import for operators over the API (the importSites mutation): who may, and where the list
 * comes from. The list is given as text, or downloaded from a host the operator listed in
 * IMPORT_URL_HOSTS through the guarded client (private addresses refused unless
 * ALLOW_PRIVATE_TARGETS, the DNS_SERVERS resolver, no redirects), bounded by IMPORT_MAX_BYTES either
 * way; then imported exactly as the CLI imports a file.
 */
export class OperatorImportService {
  constructor(
    private readonly imports: SiteImportService,
    private readonly settings: OperatorImportSettings,
  ) {}

  /** The caller's rights first (a non-operator learns nothing about the arguments), then the arguments. */
  async importSites(principal: Principal, args: object): Promise<ImportSummary> {
    if (principal.isDemo || !this.settings.operatorAccountIds.includes(String(principal.accountId)))
      throw new ForbiddenError('importSites is for operator accounts (OPERATOR_ACCOUNT_IDS)');
    const input = parseRequest(SiteImportRequest, args);
    if ((input.content === undefined) === (input.url === undefined))
      throw new ValidationError('content', 'give either content or url (exactly one)');
    const list =
      input.content !== undefined ? this.fromContent(input.content) : await this.download(input.url!);
    return this.imports.importRanks(list, { format: input.format, limit: input.limit, crawl: input.crawl });
  }

  private fromContent(content: string): Readable {
    if (Buffer.byteLength(content) > this.settings.maxBytes)
      throw new ValidationError(
        'content',
        `content is larger than IMPORT_MAX_BYTES (${this.settings.maxBytes} bytes)`,
      );
    return Readable.from([content]);
  }

  private async download(url: string): Promise<Readable> {
    const { maxBytes, urlHosts } = this.settings;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ValidationError('url', 'url must be an absolute http(s) URL');
    }
    if (!['http:', 'https:'].includes(parsed.protocol))
      throw new ValidationError('url', 'url must be an absolute http(s) URL');
    if (!urlHosts.includes(parsed.hostname.toLowerCase()))
      throw new ValidationError('url', `url: the host ${parsed.hostname} is not in IMPORT_URL_HOSTS`);
    const client = new HttpClient({ ...this.settings.fetch, maxRedirects: 0 });
    try {
      const response = await client.get(parsed.href, { maxBytes: maxBytes + 1 }).catch((error) => {
        throw new ValidationError('url', `url could not be downloaded: ${(error as Error).message}`);
      });
      if (response.status !== 200)
        throw new ValidationError('url', `url answered HTTP ${response.status}, not 200`);
      if (response.truncated || response.body.length > maxBytes)
        throw new ValidationError('url', `url: the list is larger than IMPORT_MAX_BYTES (${maxBytes} bytes)`);
      return Readable.from([response.body]);
    } finally {
      await client.close();
    }
  }
}

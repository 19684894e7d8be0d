import { eventually } from './eventually';
import { expectMatchesContract, OpenApiDocument } from './openapi-contract';

/** An answer as the client hands it on: the body, and the two credit headers as `parseInt` reads them. */
export interface CommercialAnswer<T = any> {
  data: T;
  creditsSpent: number;
  creditsRemaining: number;
}

export interface CommercialClientOptions {
  /** Every answer is checked against the service's published OpenAPI document. */
  contract?: OpenApiDocument;
  /**
   * How the client waits out a 429's Retry-After (seconds) before it asks again, as a client of a
   * rate-limited API must; a test moves the service's rate-limit clock here instead of sleeping.
   * Without it a 429 is an error like any other.
   */
  waitOut?: (retryAfterSeconds: number) => void | Promise<void>;
}

/**
 * A client written the way third-party clients of the commercial API are, pointed at this service
 * by changing only its base URL (ending in `/v2/`): the key in `x-api-key`, paths with and
 * without the trailing slash as that client sends them, JSON bodies with the published field
 * names, `data[0]` of a single-URL answer, `parseInt` of the two credit headers, a list's `url`
 * fetched as given, and an error's text from `body.message` (thrown as "STATUS: message").
 */
export class CommercialClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey?: string,
    private readonly options: CommercialClientOptions = {},
  ) {}

  async request(
    method: string,
    path: string,
    init: { params?: Record<string, string>; body?: unknown } = {},
  ): Promise<CommercialAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.requestOnce(method, path, init);
      } catch (error) {
        const retryAfter = (error as { retryAfter?: number }).retryAfter;
        if (retryAfter === undefined || !this.options.waitOut || attempt >= 5) throw error;
        await this.options.waitOut(retryAfter);
      }
    }
  }

  get(path: string, params: Record<string, string> = {}): Promise<CommercialAnswer> {
    return this.request('GET', path, { params });
  }

  async lookup(url: string, sets: string[] = []) {
    const { data, creditsSpent, creditsRemaining } = await this.get('lookup/', {
      urls: url,
      sets: sets.join(','),
      recursive: 'false',
    });
    return { site: data[0], creditsSpent, creditsRemaining };
  }

  async createList(request: Record<string, unknown>) {
    return (await this.request('POST', 'lists', { body: request })).data;
  }

  async getLists() {
    return (await this.get('lists/')).data;
  }

  async getList(id: string, slash = false) {
    return (await this.get(`lists/${id}${slash ? '/' : ''}`)).data;
  }

  async finalizeList(id: string, spendCredits: number, slash = false) {
    return (await this.request('POST', `lists/${id}${slash ? '/' : ''}`, { body: { spendCredits } })).data;
  }

  async deleteList(id: string) {
    return (await this.request('DELETE', `lists/${id}/`)).data;
  }

  /** Asks for the list every 300 ms until it leaves Calculating. */
  waitUntilReady(id: string): Promise<any> {
    return eventually(
      async () => {
        const list = await this.getList(id);
        return list.status !== 'Calculating' && list;
      },
      { describe: `list ${id} to leave Calculating`, intervalMs: 300 },
    );
  }

  private async requestOnce(
    method: string,
    path: string,
    { params = {}, body }: { params?: Record<string, string>; body?: unknown },
  ): Promise<CommercialAnswer> {
    const query = new URLSearchParams(params).toString();
    const headers: Record<string, string> = {};
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}${query ? `?${query}` : ''}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json();
    if (this.options.contract)
      expectMatchesContract(
        this.options.contract,
        method,
        new URL(response.url).pathname,
        response.status,
        data,
      );
    if (!response.ok) {
      const error = new Error(`${response.status}: ${data.message}`);
      if (response.status === 429)
        Object.assign(error, { retryAfter: Number(response.headers.get('retry-after') ?? 1) });
      throw error;
    }
    return {
      data,
      creditsSpent: parseInt(response.headers.get('service-credits-spent') ?? '', 10),
      creditsRemaining: parseInt(response.headers.get('service-credits-remaining') ?? '', 10),
    };
  }
}

import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TOPICS } from '../../../src/platform/event-bus';
import { eventually } from '../../helpers/eventually';
import { AnalysisKit, q, startAnalysisKit } from './analysis-test-kit';

interface Completed {
  url: string;
  ok: boolean;
  technologies: string[];
  pages: number;
}

describe('GraphQL subscription analysisCompleted', () => {
  let kit: AnalysisKit;
  const clients: Client[] = [];

  beforeAll(async () => {
    kit = await startAnalysisKit();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await kit.close();
  });

  /** Subscribes with the key in connectionParams; events land in the returned array. */
  async function subscribe(apiKey: string): Promise<Completed[]> {
    const client = createClient({
      url: kit.service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
    });
    clients.push(client);
    const events: Completed[] = [];
    const listeners = kit.service.running.services.events.listenerCount(TOPICS.analysisCompleted);
    client.subscribe(
      { query: 'subscription { analysisCompleted { url ok technologies pages } }' },
      {
        next: (value) => void events.push((value.data as { analysisCompleted: Completed }).analysisCompleted),
        error: (error) =>
          events.push({ url: `error: ${JSON.stringify(error)}`, ok: false, technologies: [], pages: -1 }),
        complete: () => undefined,
      },
    );
    await eventually(
      () => kit.service.running.services.events.listenerCount(TOPICS.analysisCompleted) > listeners,
      'the subscription',
    );
    return events;
  }

  it("reports the caller's own analyses (synchronous and crawled) and not another account's", async () => {
    const mine = await kit.service.createAccount({ plan: 'medium', credits: 20 });
    const other = await kit.service.createAccount({ plan: 'medium', credits: 20 });
    const events = await subscribe(mine.apiKey);

    const othersPage = kit.sites.url('/contact/');
    expect((await kit.get(`/analyze/v1/?${q({ url: othersPage })}`, other.apiKey)).body.status).toBe(
      'success',
    );
    const page = kit.sites.url('/about/');
    expect((await kit.get(`/analyze/v1/?${q({ url: page })}`, mine.apiKey)).body.status).toBe('success');
    await eventually(() => events.length >= 1, 'the first event');
    expect(events[0]).toEqual({
      url: page,
      ok: true,
      technologies: expect.arrayContaining(['wordpress', 'php']),
      pages: 1,
    });

    // A failure is reported too, and a background crawl once its job has run.
    const failing = kit.sites.url('/error');
    await kit.get(`/analyze/v1/?${q({ url: failing })}`, mine.apiKey);
    const receiver = await kit.receiverFor(mine.accountId);
    const crawled = kit.sites.url('/');
    expect(
      (await kit.get(`/crawl/v1/?${q({ url: crawled, callback_url: receiver.url })}`, mine.apiKey)).status,
    ).toBe(202);
    await receiver.waitFor(1, 30_000);
    await eventually(() => events.length >= 3, 'the crawl event');
    expect(events[1]).toEqual({ url: failing, ok: false, technologies: [], pages: 0 });
    expect(events[2]).toMatchObject({ url: crawled, ok: true });
    expect(events[2].pages).toBeGreaterThan(1);
    expect(events.map((e) => e.url)).not.toContain(othersPage);
    expect(events).toHaveLength(3);
  });
});

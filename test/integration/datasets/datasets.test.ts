import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { randomBytes } from 'node:crypto';
import { AccountEntity, DatasetChargeEntity } from '../../../src/storage/entities';
import { TOPICS } from '../../../src/platform/event-bus';
import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { jobsSettled } from '../../helpers/jobs-settled';
import {
  ListsKit,
  parseCsv,
  rankedSites,
  SeedSite,
  seedSites,
  startListsKit,
  unzip,
} from '../lists/lists-kit';
import { Mailbox, startMailbox } from './mailbox';

/**
 * Datasets end to end over a seeded index (SQLite, and MariaDB with TEST_DATABASE_URL): quote →
 * callback → confirm → callback with a signed ZIP (downloaded, unzipped, checked), emails received
 * by a loopback SMTP server, a declined charge, a repeated confirmation, 404s, 400s, 429s.
 */
const JQ: SeedSite[] = rankedSites(10, 'jquery', '3.6.0');

const SITES: SeedSite[] = [
  {
    hostname: 'alpha.com',
    languages: ['en'],
    trafficRank: 10,
    techs: [{ slug: 'wordpress', version: '6.4.2' }],
  },
  {
    hostname: 'beta.de',
    languages: ['de'],
    trafficRank: 200,
    techs: [{ slug: 'wordpress', version: '5.9' }],
  },
  { hostname: 'gamma.fr', languages: ['fr'], trafficRank: 300, techs: [{ slug: 'wordpress' }] },
  {
    hostname: 'delta.com',
    languages: ['en'],
    trafficRank: 500,
    techs: [{ slug: 'wordpress', version: '4.10' }],
  },
  ...JQ,
];

const ORDER_GQL =
  'orderRef status description amount currency records { counts { technology records } subset } ' +
  'query { technologies languages tlds matchLangTld } dataset { url } error';

describe('/dataset/v1', () => {
  let kit: ListsKit;
  let receiver: CallbackReceiver;
  let mailbox: Mailbox;
  let paths = 0;

  beforeAll(async () => {
    mailbox = await startMailbox();
    receiver = await startCallbackReceiver();
    kit = await startListsKit({
      DATASET_PRICE_PER_RECORD: '0.25',
      DATASET_CURRENCY: 'EUR',
      PAYMENT_CARD_LIMIT: '2.00',
      SMTP_URL: mailbox.url,
      MAIL_FROM: 'orders@datasets.test',
    });
    await seedSites(kit.service.running.services.db.manager, SITES);
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await receiver?.close();
    await mailbox?.close();
  });

  const account = async (plan = 'small') => {
    const { apiKey, accountId } = await kit.service.createAccount({ plan });
    const row = await kit.service.running.services.db.manager.findOneByOrFail(AccountEntity, {
      id: accountId,
    });
    return { key: apiKey, email: row.email };
  };

  /** The callbacks that reached one path of the receiver, once `count` have. */
  function callbacksAt(path: string, count: number): Promise<any[]> {
    return eventually(
      () => {
        const got = receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
        return got.length >= count && got;
      },
      { describe: `${count} callback(s) at ${path}`, intervalMs: 50 },
    );
  }

  /** POST /dataset/v1/ and the quote callback. */
  async function quote(key: string, body: Record<string, unknown>) {
    const path = `/orders/${++paths}`;
    const res = await kit.call('/dataset/v1/', key, {
      method: 'POST',
      body: { callback_url: receiver.urlFor(path), ...body },
    });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(['orderRef']);
    const [quoted] = await callbacksAt(path, 1);
    return { orderRef: res.body.orderRef as string, path, quoted };
  }

  const confirm = (key: string, orderRef: string) =>
    kit.call(`/dataset/v1/${orderRef}`, key, { method: 'POST' });

  const mailsTo = (email: string) => mailbox.mails.filter((m) => m.to.includes(email));

  it('quotes, confirms once paid, completes with a signed ZIP of CSV, and emails each step', async () => {
    const { key, email } = await account('business');
    const { orderRef, path, quoted } = await quote(key, { technologies: ['WordPress'] });
    expect(orderRef).toMatch(/^ds_[a-f0-9]{24}$/);
    expect(quoted).toEqual({
      orderRef,
      status: 'new',
      description: expect.stringContaining('WordPress'),
      amount: 1,
      currency: 'EUR',
      records: { counts: { WordPress: 4 }, subset: null },
      query: { technologies: ['WordPress'], languages: [], tlds: [], matchLangTld: false },
      dataset: { url: null },
    });

    const paid = await confirm(key, orderRef);
    expect(paid.status).toBe(202);
    expect(paid.body).toEqual({ orderStatus: 'paid' });
    const [, complete] = await callbacksAt(path, 2);
    expect(complete).toEqual({ ...quoted, status: 'complete', dataset: { url: expect.any(String) } });
    expect(complete.dataset.url).toMatch(/expires=\d+&signature=[0-9a-f]{64}$/);

    const zip = await kit.download(complete.dataset.url);
    expect(zip.status).toBe(200);
    const files = await unzip(zip.body);
    expect([...files.keys()]).toEqual(['wordpress.csv']);
    const rows = parseCsv(files.get('wordpress.csv')!);
    expect(rows.map((r) => r.hostname).sort()).toEqual(['alpha.com', 'beta.de', 'delta.com', 'gamma.fr']);
    expect(rows.find((r) => r.hostname === 'beta.de')).toMatchObject({
      technology: 'wordpress',
      version: '5.9',
    });
    // A changed signature is refused.
    // (Its first digit changed to another one: always a different signature.)
    const forged = await kit.download(
      complete.dataset.url.replace(
        /signature=(.)/,
        (_: string, d: string) => `signature=${d === '0' ? '1' : '0'}`,
      ),
    );
    expect(forged.status).toBe(403);

    const mails = await eventually(() => mailsTo(email).length >= 3 && mailsTo(email), `3 mails to ${email}`);
    expect(mails.map((m) => m.subject).sort()).toEqual(
      [
        `Invoice for order ${orderRef}`,
        `Order confirmation ${orderRef}`,
        `Receipt for order ${orderRef}`,
      ].sort(),
    );
    for (const mail of mails) {
      expect(mail.from).toBe('orders@datasets.test');
      expect(mail.text).toContain('Amount: 1.00 EUR');
    }
    const receipt = mails.find((m) => m.subject.startsWith('Receipt'))!;
    expect(receipt.text).toMatch(/Payment received: 1\.00 EUR \(charge ch_[0-9a-f]{24}\)/);
    const invoice = mails.find((m) => m.subject.startsWith('Invoice'))!;
    expect(invoice.text).toContain('WordPress: 4 records');
    expect(invoice.text).toContain(`Download (link expires): ${complete.dataset.url}`);

    const listed = await kit.service.graphql(key, `{ datasetOrders { ${ORDER_GQL} } }`);
    expect(listed.body.data.datasetOrders).toEqual([
      {
        ...complete,
        // Each read signs a fresh link: its expiry moves with the clock.
        dataset: { url: expect.stringMatching(signedPathOf(complete.dataset.url)) },
        records: { counts: [{ technology: 'WordPress', records: 4 }], subset: null },
        error: null,
      },
    ]);
    // The order's websites are not one of the account's lead lists.
    const lists = await kit.service.graphql(key, '{ lists { id } }');
    expect(lists.body.data.lists).toEqual([]);
  });

  it('limits to the subset of the most trafficked websites, and accepts callbackUrl', async () => {
    const { key } = await account();
    const path = `/orders/${++paths}`;
    const res = await kit.call('/dataset/v1', key, {
      method: 'POST',
      body: { technologies: ['jquery'], subset: 3, callbackUrl: receiver.urlFor(path) },
    });
    expect(res.status).toBe(202);
    const [quoted] = await callbacksAt(path, 1);
    expect(quoted.records).toEqual({ counts: { jQuery: 3 }, subset: 3 });
    expect(quoted.amount).toBe(0.75);
    expect((await confirm(key, res.body.orderRef)).status).toBe(202);
    const [, complete] = await callbacksAt(path, 2);
    const files = await unzip((await kit.download(complete.dataset.url)).body);
    expect(parseCsv(files.get('jquery.csv')!).map((r) => r.hostname)).toEqual([
      'rank1.net',
      'rank2.net',
      'rank3.net',
    ]);
  });

  it('matches language or TLD by default, and both with matchLanguageTld', async () => {
    const { key } = await account();
    const either = await quote(key, { technologies: ['WordPress'], languages: ['de'], tlds: ['com'] });
    expect(either.quoted.records.counts).toEqual({ WordPress: 3 });
    expect(either.quoted.query).toEqual({
      technologies: ['WordPress'],
      languages: ['de'],
      tlds: ['.com'],
      matchLangTld: false,
    });
    const both = await quote(key, {
      technologies: ['WordPress'],
      languages: ['en'],
      tlds: ['.com'],
      matchLanguageTld: true,
    });
    expect(both.quoted.records.counts).toEqual({ WordPress: 2 });
    expect(both.quoted.query.matchLangTld).toBe(true);
  });

  it('declines a charge above the card limit: 402, the order stays new, nothing charged or mailed', async () => {
    const { key, email } = await account();
    const { orderRef, path, quoted } = await quote(key, { technologies: ['WordPress', 'jQuery'] });
    expect(quoted.amount).toBe(3.5);
    const res = await confirm(key, orderRef);
    expect(res.status).toBe(402);
    expect(res.text).toContain('declined');
    const order = await kit.service.graphql(
      key,
      `query($r: String!) { datasetOrder(orderRef: $r) { status error } }`,
      {
        r: orderRef,
      },
    );
    expect(order.body.data.datasetOrder.status).toBe('new');
    expect(order.body.data.datasetOrder.error).toContain('declined');
    const charges = await kit.service.running.services.db.manager.countBy(DatasetChargeEntity, { orderRef });
    expect(charges).toBe(0);
    // Callbacks and mails are jobs: once none is left, whatever the refusal sent has arrived.
    await jobsSettled(kit.service);
    expect(receiver.received.filter((r) => r.path === path)).toHaveLength(1);
    expect(mailsTo(email)).toHaveLength(0);
  });

  it('charges a confirmed order once however often it is confirmed', async () => {
    const { key, email } = await account();
    const { orderRef, path } = await quote(key, { technologies: ['WordPress'] });
    expect((await confirm(key, orderRef)).body).toEqual({ orderStatus: 'paid' });
    const again = await confirm(key, orderRef);
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ orderStatus: 'paid' });
    await callbacksAt(path, 2);
    const third = await confirm(key, orderRef);
    expect(third.body).toEqual({ orderStatus: 'paid' });
    const charges = await kit.service.running.services.db.manager.findBy(DatasetChargeEntity, { orderRef });
    expect(charges.map((c) => Number(c.amount))).toEqual([1]);
    // Callbacks and mails are jobs: once none is left, whatever the confirmations sent has arrived.
    await jobsSettled(kit.service);
    expect(receiver.received.filter((r) => r.path === path)).toHaveLength(2);
    expect(mailsTo(email).filter((m) => m.subject.startsWith('Receipt'))).toHaveLength(1);
  });

  it('answers 404 for an unknown, malformed or foreign orderRef', async () => {
    const owner = await account();
    const { orderRef } = await quote(owner.key, { technologies: ['WordPress'] });
    const { key } = await account();
    for (const ref of [`ds_${randomBytes(12).toString('hex')}`, 'nonsense', orderRef]) {
      const res = await confirm(key, ref);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it.each([
    [{}, 'technologies'],
    [{ technologies: 'WordPress' }, 'technologies'],
    [{ technologies: [] }, 'technologies'],
    [{ technologies: ['No Such Technology'] }, 'technologies'],
    [{ technologies: ['WordPress'], callback_url: undefined }, 'callback_url'],
    [{ technologies: ['WordPress'], languages: [5] }, 'languages'],
    [{ technologies: ['WordPress'], languages: ['english'] }, 'languages'],
    [{ technologies: ['WordPress'], tlds: ['not a tld'] }, 'tlds'],
    [{ technologies: ['WordPress'], subset: 0 }, 'subset'],
    [{ technologies: ['WordPress'], subset: 'ten' }, 'subset'],
    [{ technologies: ['WordPress'], matchLanguageTld: 'yes' }, 'matchLanguageTld'],
    [{ technologies: ['WordPress'], callback_url: 'not a url' }, 'callback_url'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const { key } = await account();
    const res = await kit.call('/dataset/v1/', key, {
      method: 'POST',
      body: { callback_url: receiver.urlFor('/never'), ...body },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain(field);
  });

  it('limits requests: 1 per second in a burst, 6 per minute (1 per 10 s on average)', async () => {
    const { key } = await account();
    const post = () =>
      kit.service.request('/dataset/v1/', {
        key,
        method: 'POST',
        body: { technologies: ['WordPress'], callback_url: receiver.urlFor('/limits') },
      });
    // The limits' clock moves only when this test moves it: a second passes at `advance(1000)`.
    const { clock } = kit.service;
    clock.freeze();
    try {
      expect((await post()).status).toBe(202);
      const burst = await post();
      expect(burst.status).toBe(429);
      expect(burst.headers.get('retry-after')).toBe('1');
      for (let accepted = 1; accepted < 6; accepted++) {
        clock.advance(1000);
        expect((await post()).status).toBe(202);
      }
      // Six in the minute's window, the first five seconds ago: the next slot is 54 s away.
      clock.advance(1000);
      const sustained = await post();
      expect(sustained.status).toBe(429);
      expect(sustained.headers.get('retry-after')).toBe('54');
      // Then the first leaves the window, and one more goes through.
      clock.advance(54_000);
      expect((await post()).status).toBe(202);
    } finally {
      clock.resume();
    }
  });

  it("pushes each status change of the caller's orders to a datasetOrderChanged subscription, and nobody else's", async () => {
    const mine = await account('business');
    const other = await account('business');
    const seen: { orderRef: string; status: string }[] = [];
    const foreign: { orderRef: string; status: string }[] = [];
    const connect = (key: string) =>
      createClient({
        url: kit.service.url.replace(/^http/, 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: { 'x-api-key': key },
        retryAttempts: 0,
      });
    const clients = [connect(mine.key), connect(other.key)];
    try {
      const listen = (client: Client, sink: (order: { orderRef: string; status: string }) => void) =>
        client.subscribe(
          { query: 'subscription { datasetOrderChanged { orderRef status } }' },
          {
            next: (value) =>
              sink(
                (value.data as { datasetOrderChanged: { orderRef: string; status: string } })
                  .datasetOrderChanged,
              ),
            error: () => undefined,
            complete: () => undefined,
          },
        );
      const { events } = kit.service.running.services;
      const before = events.listenerCount(TOPICS.datasetOrderChanged);
      listen(clients[0], (order) => seen.push(order));
      listen(clients[1], (order) => foreign.push(order));
      await eventually(
        () => events.listenerCount(TOPICS.datasetOrderChanged) >= before + 2,
        'both subscriptions to be registered',
      );
      const { orderRef, path } = await quote(mine.key, { technologies: ['jQuery'], subset: 4 });
      expect((await confirm(mine.key, orderRef)).status).toBe(202);
      await callbacksAt(path, 2);
      await eventually(
        () => seen.some((o) => o.orderRef === orderRef && o.status === 'complete'),
        'the complete event',
      );
      const statuses = seen.filter((o) => o.orderRef === orderRef).map((o) => o.status);
      expect(statuses).toEqual(expect.arrayContaining(['new', 'paid', 'complete']));
      // The other account hears of its own orders: once it has heard of one quoted after all of
      // the above, it would have heard of those too.
      const marker = await quote(other.key, { technologies: ['WordPress'] });
      await eventually(
        () => foreign.some((o) => o.orderRef === marker.orderRef),
        "the other account's own order",
      );
      expect(foreign.filter((o) => o.orderRef !== marker.orderRef)).toEqual([]);
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
    }
  });
});

/** A pattern for the same file's link with any expiry and signature. */
function signedPathOf(url: string): RegExp {
  const path = url.split('?')[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${path}\\?expires=\\d+&signature=[0-9a-f]{64}$`);
}

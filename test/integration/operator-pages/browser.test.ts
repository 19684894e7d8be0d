import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { TOPICS } from '../../../src/platform/event-bus';
import { eventually } from '../../helpers/eventually';
import { launchSandboxedBrowser, SandboxedBrowser } from '../../helpers/headless-chromium';
import { startTestService, TestService } from '../../helpers/test-service';

/** Screenshots kept for people to look at (gitignored). */
const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts', 'operator-pages');

/** Console errors and page errors, CSP violations included (Chromium logs those as errors). */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** Replaces the text of the CodeMirror editor inside `container` (GraphiQL's editors). */
async function setEditor(page: Page, container: string, text: string): Promise<void> {
  await page.locator(`${container} .CodeMirror`).first().waitFor({ state: 'attached' });
  await page.evaluate(
    ({ selector, value }) => {
      // The visible one: the variables and headers editors share the tools pane, one hidden.
      const element = document.querySelector(
        `${selector} .graphiql-editor:not(.hidden) .CodeMirror`,
      ) as unknown as { CodeMirror: { setValue(v: string): void } };
      element.CodeMirror.setValue(value);
    },
    { selector: container, value: text },
  );
}

async function responseText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.querySelector('.graphiql-response .CodeMirror') as unknown as {
      CodeMirror: { getValue(): string };
    } | null;
    return element ? element.CodeMirror.getValue() : '';
  });
}

async function waitForResponse(page: Page, predicate: (text: string) => boolean): Promise<string> {
  return eventually(
    async () => {
      const text = await responseText(page);
      if (!predicate(text)) throw new Error(`the response is ${JSON.stringify(text)}`);
      return text;
    },
    { describe: "the explorer's response", timeoutMs: 15_000, intervalMs: 50 },
  );
}

describe('the reference and the explorer in a real headless browser', () => {
  let service: TestService;
  let sandbox: SandboxedBrowser;
  let apiKey: string;
  let accountId: number;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    service = await startTestService();
    ({ apiKey, accountId } = await service.createAccount({ plan: 'small', credits: 321 }));
    sandbox = await launchSandboxedBrowser(service.url);
    // The sandbox bites: a page elsewhere is refused and recorded (then the record starts afresh).
    const probe = await sandbox.context.newPage();
    await expect(probe.goto('http://192.0.2.1/elsewhere')).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    expect(sandbox.blocked).toEqual(['http://192.0.2.1/elsewhere']);
    sandbox.blocked.length = 0;
    await probe.close();
  });
  afterAll(async () => {
    await sandbox?.close();
    await service?.stop();
  });

  it('GET /docs: authorises with the key and runs a REST call with try-it-out', async () => {
    const page = await sandbox.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${service.url}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor();

    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.auth-container input').fill(apiKey);
    await page.locator('.auth-btn-wrapper .modal-btn.authorize').click();
    await page.locator('.auth-btn-wrapper .btn-done').click();

    const operation = page.locator('.opblock', { hasText: '/v2/credits/balance' }).first();
    await operation.locator('.opblock-summary').click();
    const tryOut = operation.locator('.try-out__btn');
    if ((await tryOut.count()) > 0 && (await tryOut.innerText()).includes('Try it out')) await tryOut.click();
    await operation.locator('.execute').click();
    const row = operation.locator('.live-responses-table tbody tr.response').first();
    await row.waitFor();
    expect((await row.locator('.response-col_status').innerText()).trim()).toBe('200');
    const body = row.locator('.response-col_description pre').first();
    expect(JSON.parse(await body.innerText())).toEqual({ credits: 321 });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-try-it-out.png'), fullPage: false });

    expect(sandbox.blocked).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('GET /graphql: runs a query and a subscription with the key from the header editor', async () => {
    const page = await sandbox.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${service.url}/graphql`);
    await page.locator('.graphiql-container').waitFor();
    // Without a key the docs say what they need (GRAPHQL_INTROSPECTION=key), asking nothing.
    expect(await waitForResponse(page, (text) => text.includes('need your API key'))).toContain('x-api-key');

    await page.locator('.graphiql-editor-tools button', { hasText: 'Headers' }).click();
    await setEditor(page, '.graphiql-editor-tool', JSON.stringify({ 'x-api-key': apiKey }));
    await setEditor(page, '.graphiql-query-editor', '{ account { plan credits } }');
    await page.locator('.graphiql-execute-button').click();
    const answer = await waitForResponse(page, (text) => text.includes('"credits"'));
    expect(JSON.parse(answer)).toEqual({ data: { account: { plan: 'small', credits: 321 } } });

    // With the key in the headers, the schema's docs load (introspection needs a key by default).
    await page.locator('[aria-label="Re-fetch GraphQL schema"]').click();
    await page.locator('[aria-label="Show Documentation Explorer"]').click();
    await page.locator('.graphiql-doc-explorer', { hasText: 'Query' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'explorer-query.png') });

    await setEditor(
      page,
      '.graphiql-query-editor',
      'subscription { creditsChanged { credits delta reason } }',
    );
    const { events, credits } = service.running.services;
    const listening = events.listenerCount(TOPICS.creditsChanged);
    await page.locator('.graphiql-execute-button').click();
    // The subscription is open once the server knows of it; then a credit change is pushed.
    await eventually(
      () => events.listenerCount(TOPICS.creditsChanged) > listening,
      "the explorer's subscription to be registered",
    );
    await credits.grant(accountId, 5, 'explorer test');
    const pushed = JSON.parse(await waitForResponse(page, (text) => text.includes('"creditsChanged"')));
    expect(pushed.data.creditsChanged).toEqual(
      expect.objectContaining({ delta: 5, reason: 'explorer test' }),
    );
    expect(pushed.data.creditsChanged.credits).toBe(326);
    await page.screenshot({ path: join(ARTIFACTS, 'explorer-subscription.png') });
    await page.locator('.graphiql-execute-button').click(); // stops the subscription

    expect(sandbox.blocked).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

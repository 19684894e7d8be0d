import { existsSync } from 'node:fs';
import { Browser, BrowserContext, chromium } from 'playwright-core';

/** Where Debian's headless Chromium lives (installed by .ci/ensure-browser); CHROMIUM_PATH wins. */
export function chromiumExecutable(): string {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium-headless-shell',
    '/usr/lib/chromium/chromium-headless-shell',
    '/usr/bin/chromium',
  ].filter((c): c is string => Boolean(c));
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    throw new Error('No headless Chromium found: run `bash .ci/ensure-browser` (or set CHROMIUM_PATH)');
  }
  return found;
}

export interface SandboxedBrowser {
  browser: Browser;
  context: BrowserContext;
  /** Every request (HTTP or WebSocket) that tried to leave for another origin, refused. */
  blocked: string[];
  close(): Promise<void>;
}

/**
 * A headless Chromium (driven by playwright-core, nothing downloaded) whose pages may reach only
 * `origin`: every other HTTP request is aborted and every other WebSocket closed, and each attempt
 * is recorded so a test can assert that nothing tried to leave the machine.
 */
export async function launchSandboxedBrowser(origin: string): Promise<SandboxedBrowser> {
  const browser = await chromium.launch({ executablePath: chromiumExecutable() });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const blocked: string[] = [];
  const wsOrigin = origin.replace(/^http/, 'ws');
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, (ws) => {
    if (new URL(ws.url()).origin === wsOrigin) {
      ws.connectToServer();
      return;
    }
    blocked.push(ws.url());
    ws.close({ code: 1008, reason: 'blocked by the test' });
  });
  return {
    browser,
    context,
    blocked,
    async close() {
      await context.close();
      await browser.close();
    },
  };
}

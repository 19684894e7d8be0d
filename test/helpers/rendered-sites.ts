import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The analytics host name the tracked page calls (Amplitude's xhr fingerprint: `\.amplitude\.com`). */
export const ANALYTICS_HOST = 'api2.amplitude.com';

export interface RenderedSites {
  /** "http://127.0.0.1:PORT" of the pages. */
  url: string;
  /** Port of the analytics endpoint (the test maps ANALYTICS_HOST to 127.0.0.1). */
  analyticsPort: number;
  /** Requests the pages server received (paths), and those the analytics endpoint received. */
  requests: string[];
  analyticsRequests: string[];
  /** The size of the bundle esbuild produced. */
  bundleBytes: number;
  close(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'browser');

function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * Real pages for the browser tests, on 127.0.0.1:
 * - `/spa/`: an app shell whose bundle esbuild builds now from the npm packages vue and core-js;
 * - `/loader/`: RequireJS (data-main) loading jQuery as an AMD module;
 * - `/tracked/`: a page sending XHR and fetch calls to ANALYTICS_HOST (a second server);
 * - `/plain/`: static text, no script at all;
 * - `/slow/`: a page whose (blocking) script never finishes loading (for deadlines);
 * - `/endless-async/`: a page whose load event never comes (an async script never finishes);
 * - `/delayed/`: a page whose script is answered after a second (to crash the browser meanwhile);
 * - `/heavy-assets/`: images, a font and a video the browser must not fetch.
 */
export async function startRenderedSites(): Promise<RenderedSites> {
  const bundled = await build({
    entryPoints: [join(FIXTURES, 'spa-entry.js')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    absWorkingDir: ROOT,
    define: {
      'process.env.NODE_ENV': '"production"',
      __VUE_OPTIONS_API__: 'true',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
  });
  const bundle = bundled.outputFiles[0].text;
  const requireJs = readFileSync(join(ROOT, 'node_modules', 'requirejs', 'require.js'), 'utf8');
  const jquery = readFileSync(join(ROOT, 'node_modules', 'jquery', 'dist', 'jquery.min.js'), 'utf8');
  const loaderMain = readFileSync(join(FIXTURES, 'loader-main.js'), 'utf8');

  const requests: string[] = [];
  const analyticsRequests: string[] = [];
  const analytics = createServer((req, res) => {
    analyticsRequests.push(`${req.method} ${req.headers.host} ${req.url}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end('{"code":200}');
  });
  const analyticsPort = await listen(analytics);

  const send = (res: ServerResponse, type: string, body: string): void => {
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  const pages = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push(path);
    switch (path) {
      case '/spa/':
        return send(
          res,
          'text/html',
          page('Shop', '<div id="app"></div><script src="/spa/app.js"></script>'),
        );
      case '/spa/app.js':
        return send(res, 'text/javascript', bundle);
      case '/loader/':
        return send(
          res,
          'text/html',
          page(
            'Loader',
            '<p id="greeting">Waiting for the loader</p><script data-main="/loader/main" src="/vendor/require.js"></script>',
          ),
        );
      case '/loader/main.js':
        return send(res, 'text/javascript', loaderMain);
      case '/vendor/require.js':
        return send(res, 'text/javascript', requireJs);
      case '/vendor/jquery.min.js':
        return send(res, 'text/javascript', jquery);
      case '/tracked/':
        return send(
          res,
          'text/html',
          page(
            'Tracked',
            `<p>Welcome</p><script>
              var endpoint = 'http://${ANALYTICS_HOST}:${analyticsPort}';
              fetch(endpoint + '/2/httpapi', { method: 'POST', body: '{"events":[]}' }).catch(function () {});
              var xhr = new XMLHttpRequest(); xhr.open('GET', endpoint + '/ping?v=1'); xhr.send();
            </script>`,
          ),
        );
      case '/plain/':
        return send(
          res,
          'text/html',
          page('Plain', `<h1>Plain page</h1><p>${'Static text only. '.repeat(60)}</p>`),
        );
      case '/slow/':
        return send(
          res,
          'text/html',
          page('Slow', '<p>Loading forever</p><script src="/never-ends.js"></script>'),
        );
      case '/endless-async/':
        return send(
          res,
          'text/html',
          page(
            'Endless',
            '<p>Partly there</p><script>window.partial = "yes"</script><script async src="/never-ends.js"></script>',
          ),
        );
      case '/never-ends.js':
        // Answers headers, then never finishes the body: the load event never fires.
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.write('// ');
        return;
      case '/delayed/':
        return send(res, 'text/html', page('Delayed', '<p>Soon</p><script src="/delayed.js"></script>'));
      case '/delayed.js':
        // Answered late, so a test can act while the browser is waiting for it.
        setTimeout(() => send(res, 'text/javascript', 'window.delayedLoaded = "yes";'), 1000);
        return;
      case '/heavy-assets/':
        return send(
          res,
          'text/html',
          page(
            'Assets',
            '<img src="/asset/a.png"><video src="/asset/b.mp4" autoplay muted></video><p class="f">Text</p><script>window.pageReady = true</script>',
            '<style>@font-face{font-family:X;src:url(/asset/c.woff2)} .f{font-family:X}</style>',
          ),
        );
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
    }
  });
  const pagesPort = await listen(pages);
  const close = async (server: Server): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${pagesPort}`,
    analyticsPort,
    requests,
    analyticsRequests,
    bundleBytes: Buffer.byteLength(bundle),
    close: async () => {
      await Promise.all([close(pages), close(analytics)]);
    },
  };
}

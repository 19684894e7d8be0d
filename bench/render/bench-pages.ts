import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/** The checkout (where package.json is), from dist/bench/render or bench/render alike. */
function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

export interface BenchPages {
  /** Page URLs, one per kind: an esbuild bundle of Vue + core-js, a RequireJS page loading jQuery, an XHR-tracked page. */
  urls: string[];
  close(): Promise<void>;
}

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** The browser tests' page kinds on 127.0.0.1, served without delays. */
export async function startBenchPages(): Promise<BenchPages> {
  const root = projectRoot();
  const fixtures = join(root, 'test', 'fixtures', 'browser');
  const bundle = (
    await build({
      entryPoints: [join(fixtures, 'spa-entry.js')],
      bundle: true,
      minify: true,
      format: 'iife',
      write: false,
      logLevel: 'silent',
      absWorkingDir: root,
      define: {
        'process.env.NODE_ENV': '"production"',
        __VUE_OPTIONS_API__: 'true',
        __VUE_PROD_DEVTOOLS__: 'false',
      },
    })
  ).outputFiles[0].text;
  const files: Record<string, [string, string]> = {
    '/spa/': ['text/html', page('Shop', '<div id="app"></div><script src="/spa/app.js"></script>')],
    '/spa/app.js': ['text/javascript', bundle],
    '/loader/': [
      'text/html',
      page(
        'Loader',
        '<p id="greeting">Wait</p><script data-main="/loader/main" src="/vendor/require.js"></script>',
      ),
    ],
    '/loader/main.js': ['text/javascript', readFileSync(join(fixtures, 'loader-main.js'), 'utf8')],
    '/vendor/require.js': [
      'text/javascript',
      readFileSync(join(root, 'node_modules/requirejs/require.js'), 'utf8'),
    ],
    '/vendor/jquery.min.js': [
      'text/javascript',
      readFileSync(join(root, 'node_modules/jquery/dist/jquery.min.js'), 'utf8'),
    ],
    '/tracked/': [
      'text/html',
      page(
        'Tracked',
        '<p>Welcome</p><script>fetch("/collect", { method: "POST", body: "{}" }).catch(function () {});</script>',
      ),
    ],
    '/collect': ['application/json', '{}'],
  };
  const server: Server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?')[0]];
    req.resume();
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file[0] });
    res.end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urls: ['/spa/', '/loader/', '/tracked/'].map((p) => base + p),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

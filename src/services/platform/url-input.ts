import { ValidationError } from '../../errors';

/**
 * A target URL as users type it: http(s) only, no credentials, at most 2048 characters; a bare
 * host name gets http:// like the published examples (url=example.com). Errors name the parameter.
 */
export function parseHttpUrl(name: string, input: string): string {
  const text = input.trim();
  if (!text) throw new ValidationError(name, `${name} must not be empty`);
  if (text.length > 2048) throw new ValidationError(name, `${name} must be at most 2048 characters`);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ValidationError(
      name,
      `${name} must be a valid http(s) URL: ${JSON.stringify(text.slice(0, 100))}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(name, `${name} must use http or https`);
  }
  if (url.username || url.password) throw new ValidationError(name, `${name} must not contain credentials`);
  if (!url.hostname) throw new ValidationError(name, `${name} must name a host`);
  return url.toString();
}

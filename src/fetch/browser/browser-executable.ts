import { accessSync, constants } from 'node:fs';

/** Where Debian and most distributions put a headless Chromium, best choice first. */
export const BROWSER_PATHS = [
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
] as const;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser to drive: BROWSER_EXECUTABLE when set (null when it is not an executable file: an
 * operator who names a browser wants that one, not a fallback), else the first usual path present.
 */
export function findBrowserExecutable(
  configured?: string,
  candidates: readonly string[] = BROWSER_PATHS,
): string | null {
  if (configured) return executable(configured) ? configured : null;
  return candidates.find(executable) ?? null;
}

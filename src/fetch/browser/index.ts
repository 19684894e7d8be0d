export { BrowserPool, RenderError } from './browser-pool';
export type {
  BrowserPoolStats,
  BrowserSettings,
  DomPropertyProbe,
  RenderedPage,
  RenderRequest,
} from './browser-pool';
export { BROWSER_PATHS, findBrowserExecutable } from './browser-executable';
export { GuardProxy } from './guard-proxy';
export type { GuardProxyOptions } from './guard-proxy';
export { resolverLookup } from './resolver-lookup';
export { processTree, processTreeRss } from './process-memory';

import type { DetectionEngine, DetectionResult } from '../../detection';
import type { FetchedPage } from '../../fetch';
import { BrowserPool, RenderError, type BrowserSettings } from '../../fetch/browser';
import { logger } from '../../platform/logger';
import { engineSourceOf, type EngineSource } from '../fingerprints/engine-source';

export type RenderMode = 'off' | 'auto' | 'always';

/** Why a page was or was not rendered (GraphQL shows it with each analysis). */
export type RenderStatus =
  | 'rendered'
  /** The mode was off. */
  | 'off'
  /** auto decided the static result was enough (see shouldRender). */
  | 'not-needed'
  /** No browser is installed (or BROWSER_EXECUTABLE names none). */
  | 'unavailable'
  /** The browser failed on the page (deadline, crash, navigation error): the static result stands. */
  | 'failed';

export interface RenderedAnalysis {
  result: DetectionResult;
  status: RenderStatus;
  /** Host names of the page's XHR/fetch requests (recorded with the site's other host names). */
  xhrHosts: string[];
}

/** A script-heavy page whose visible text is shorter than this is taken for an app shell. */
const APP_SHELL_TEXT_CHARS = 500;
/** A global's name specific enough to be worth a browser: see shouldRender. */
const SPECIFIC_GLOBAL = /^(?=.{6})(?:.+[A-Z0-9_$]|[_$])/;
const HAS_INLINE_SCRIPT = /<script\b(?![^>]*\bsrc\s*=)[^>]*>\s*\S/i;
const NOT_TEXT = /<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->|<[^>]+>/gi;

/** Visible text length of a page, roughly (tags, scripts and styles removed), stopping early. */
function visibleTextLength(html: string, enough: number): number {
  const body = html.slice(0, 2_000_000).replace(NOT_TEXT, ' ');
  return Math.min(body.replace(/\s+/g, ' ').trim().length, enough);
}

/**
 * Adds what a browser sees to static detection: renders the page in the browser pool, reads the js
 * chains the engine's prefilter selects from what the page loaded, and lets the engine resolve
 * static and rendered evidence together (implies, excludes, requires), so a rendered analysis is
 * one result, never two merged after the fact. Without a browser, or when rendering fails, the
 * static result stands (js/xhr technologies stay reported as skipped).
 */
export class PageRenderer {
  private readonly engines: EngineSource;

  constructor(
    engine: DetectionEngine | EngineSource,
    /** The browser pool (null without a browser or with RENDER=off): for its figures. */
    readonly pool: BrowserPool | null,
    readonly defaultMode: RenderMode,
  ) {
    this.engines = engineSourceOf(engine);
  }

  get available(): boolean {
    return this.pool !== null;
  }

  /**
   * The `auto` rule: render when the page runs scripts (an external or a non-empty inline one) and
   * one of: it looks like an app shell (under 500 characters of visible text); static detection left
   * an xhr-only technology it hints at (its host name occurs in the markup or scripts); or the markup
   * or scripts name a JavaScript global that js patterns read, of a technology not already found,
   * specific enough to mean something (an identifier such as `jQuery`, `__NEXT_DATA__` or
   * `gaGlobal`: six characters or more with a capital inside, an underscore, a `$` or a digit; plain
   * words such as `Base`, `search` or `moment` occur on most pages and alone do not justify a
   * browser). A page without scripts has nothing a browser could add.
   */
  shouldRender(
    page: FetchedPage,
    staticResult: DetectionResult,
    engine: DetectionEngine = this.engines.current(),
  ): boolean {
    const html = page.input.html;
    const hasScripts = (page.input.scriptSrc?.length ?? 0) > 0 || HAS_INLINE_SCRIPT.test(html);
    if (!hasScripts) return false;
    if (visibleTextLength(html, APP_SHELL_TEXT_CHARS) < APP_SHELL_TEXT_CHARS) return true;
    if (staticResult.skipped.some((s) => s.reason === 'xhr')) return true;
    const found = new Set(staticResult.technologies.map((t) => t.slug));
    return engine
      .jsChainsFor([html, ...(page.input.scripts ?? [])])
      .some(
        (chain) => SPECIFIC_GLOBAL.test(chain.split(/[.[]/)[0]) && !this.foundAlready(engine, chain, found),
      );
  }

  /** True when every technology reading this chain was found statically (rendering adds little). */
  private foundAlready(engine: DetectionEngine, chain: string, found: ReadonlySet<string>): boolean {
    const fp = engine.fingerprints;
    return (fp.jsPatterns.get(chain) ?? []).every((entry) => found.has(fp.technologies[entry.tech].slug));
  }

  async analyze(
    page: FetchedPage,
    staticResult: DetectionResult,
    mode: RenderMode = this.defaultMode,
    signal?: AbortSignal,
    /** The analysis's engine (it keeps one from start to end). */
    engine: DetectionEngine = this.engines.current(),
  ): Promise<RenderedAnalysis> {
    const unchanged = (status: RenderStatus): RenderedAnalysis => ({
      result: staticResult,
      status,
      xhrHosts: [],
    });
    // RENDER=off is the operator's choice for every request: no caller turns the browser on.
    if (mode === 'off' || this.defaultMode === 'off') return unchanged('off');
    if (mode === 'auto' && !this.shouldRender(page, staticResult, engine)) return unchanged('not-needed');
    if (!this.pool) return unchanged('unavailable');
    try {
      const rendered = await this.pool.render({
        url: page.input.url,
        selectChains: (texts) => engine.jsChainsFor(texts),
        domProperties: engine.domPropertyProbes(),
        signal,
      });
      const result = engine.analyze({
        ...page.input,
        rendered: {
          html: rendered.html,
          js: rendered.js,
          domProperties: rendered.domProperties,
          xhr: rendered.xhr,
        },
      });
      return { result, status: 'rendered', xhrHosts: rendered.xhrHosts };
    } catch (error) {
      logger.info(
        { url: page.input.url, reason: error instanceof RenderError ? error.reason : 'error', err: error },
        'rendering failed; the static result stands',
      );
      return unchanged('failed');
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}

export type PageRendererSettings = Omit<BrowserSettings, 'executablePath'> & {
  executablePath: string | null;
};

/** The renderer of the settings: a pool when a browser executable was found, none otherwise. */
export function buildPageRenderer(
  engine: DetectionEngine | EngineSource,
  mode: RenderMode,
  settings: PageRendererSettings,
): PageRenderer {
  const { executablePath } = settings;
  const pool = executablePath && mode !== 'off' ? new BrowserPool({ ...settings, executablePath }) : null;
  return new PageRenderer(engine, pool, mode);
}

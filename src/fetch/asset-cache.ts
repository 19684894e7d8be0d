/**
 * The assets (scripts, stylesheets) one crawl has fetched, by URL: pages of a site share their
 * bundles, so each is fetched once per crawl instead of once per page (a 32-page crawl used to fetch
 * the same jquery.min.js 32 times). Bounded by total size: past the bound, assets are fetched
 * again rather than kept.
 */
export class AssetCache {
  private readonly bodies = new Map<string, Promise<string | undefined>>();
  private bytes = 0;

  constructor(private readonly maxBytes = 20 * 1_048_576) {}

  /** The cached body of `url`, or what `load` fetches (kept when it fits the bound). */
  get(url: string, load: () => Promise<string | undefined>): Promise<string | undefined> {
    const known = this.bodies.get(url);
    if (known) return known;
    const loading = load();
    if (this.bytes < this.maxBytes) {
      this.bodies.set(url, loading);
      void loading.then((body) => {
        this.bytes += body?.length ?? 0;
      });
    }
    return loading;
  }
}

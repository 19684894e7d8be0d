import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/platform/config';
import type { DetectedTechnology } from '../../src/detection/detection-result';
import { startService } from '../../src/service-runtime';

export interface HotPathSeed {
  /** 300 keys: 30 of each of 10 accounts, in round-robin order of accounts. */
  keys: string[];
  /** The stored sites' URLs. */
  sites: string[];
}

const ACCOUNTS = 10;
const KEYS_PER_ACCOUNT = 30;
const TECHNOLOGIES_PER_SITE = 15;
const MONTHS = 6;

/**
 * Seeds a fresh database through the service's own code (migrations, accounts, keys, and every
 * site recorded by the index once a month for six months), then closes it: the measured service
 * is a separate process. Accounts are on the plan named in the bench's plans file.
 */
export async function seedHotPath(
  databaseUrl: string,
  sites: number,
  plansFile: string,
): Promise<HotPathSeed> {
  const plan = Object.keys((JSON.parse(readFileSync(plansFile, 'utf8')) as { plans: object }).plans)[0];
  const running = await startService(
    loadConfig({
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl,
      PLANS_FILE: plansFile,
      EMBEDDED_WORKER: 'false',
      TRAFFIC_RANK_REFRESH_MINUTES: '0',
      RECRAWL_AFTER_DAYS: '0',
    }),
  );
  try {
    const { services } = running;
    const byAccount: string[][] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const created = await services.accounts.createAccount({
        name: `Hot path ${a}`,
        email: `hot-path-${a}@bench.example`,
        plan,
        credits: 100_000_000,
      });
      const keys = [created.apiKey];
      while (keys.length < KEYS_PER_ACCOUNT)
        keys.push((await services.accounts.createKey(created.accountId)).apiKey);
      byAccount.push(keys);
    }
    const keys: string[] = [];
    for (let k = 0; k < KEYS_PER_ACCOUNT; k++) for (const account of byAccount) keys.push(account[k]);

    const catalogue = services.engine.fingerprints.technologies;
    const urls: string[] = [];
    const now = new Date();
    for (let s = 0; s < sites; s++) {
      const url = `https://www.shop-${s}.example/`;
      urls.push(url);
      const technologies: DetectedTechnology[] = [];
      for (let t = 0; t < TECHNOLOGIES_PER_SITE; t++) {
        const tech = catalogue[(s * 7 + t * 37) % catalogue.length];
        technologies.push({
          name: tech.name,
          slug: tech.slug,
          categories: tech.categories.map(({ id, slug, name, priority }) => ({ id, slug, name, priority })),
          versions: t % 3 === 0 ? [`${1 + (t % 5)}.${s % 10}.0`] : [],
          version: t % 3 === 0 ? `${1 + (t % 5)}.${s % 10}.0` : '',
          confidence: 100,
          icon: tech.icon,
          website: tech.website,
          implied: false,
          evidence: [],
        });
      }
      for (let m = MONTHS - 1; m >= 0; m--) {
        const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - m, 2, 12));
        await services.siteIndex.record({
          url,
          pages: [{ url, isRoot: true, technologies, languages: ['en'], title: `Shop ${s}` }],
          technologies,
          hostnames: [],
          at,
        });
      }
    }
    return { keys, sites: urls };
  } finally {
    await running.stop();
  }
}

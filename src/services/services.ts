import type { Config } from '../config';
import { Database } from '../db/database';
import { EventBus } from '../events/event-bus';
import { AccountService } from './account.service';
import { AuthService } from './auth.service';
import { CreditService } from './credit.service';
import { MeteringService } from './metering.service';
import { MyAccountService } from './my-account.service';
import { QuotaService } from './quota.service';
import { RateLimitService } from './rate-limit.service';

/**
 * The service graph, built once per process and shared by every transport and worker.
 * Construction is plain: each service receives exactly the collaborators it uses.
 */
export interface Services {
  config: Config;
  db: Database;
  events: EventBus;
  accounts: AccountService;
  auth: AuthService;
  credits: CreditService;
  quota: QuotaService;
  rateLimit: RateLimitService;
  metering: MeteringService;
  myAccount: MyAccountService;
}

export async function buildServices(config: Config, db: Database, events = new EventBus()): Promise<Services> {
  const credits = new CreditService(db, events);
  const accounts = new AccountService(db, credits);
  const demoAccountId = config.DEMO_API_KEY ? await accounts.ensureDemoAccount() : null;
  const auth = new AuthService(db, { key: config.DEMO_API_KEY, accountId: demoAccountId });
  const quota = new QuotaService(db, () => new Date(), config.DEMO_DAILY_REQUESTS);
  const rateLimit = new RateLimitService();
  const metering = new MeteringService(quota, credits);
  const myAccount = new MyAccountService(accounts, credits, quota, metering);
  return { config, db, events, accounts, auth, credits, quota, rateLimit, metering, myAccount };
}

import type { AccountSummary } from '../services/platform/account.service';
import type { CreditLedgerEntryEntity } from '../storage/entities';
import { Account, ApiKeyInfo } from './account.type';
import { LedgerEntry } from './ledger.type';
import { unixSeconds } from './unix-time';

/** Storage and service shapes become published types here and only here (no key hashes leak). */
export function toAccount(summary: AccountSummary): Account {
  return Object.assign(new Account(), {
    id: summary.id,
    name: summary.name,
    email: summary.email,
    plan: summary.plan,
    credits: summary.credits,
    hasSigningSecret: summary.hasSigningSecret,
    createdAt: unixSeconds(summary.createdAt),
    keys: summary.keys.map((k) =>
      Object.assign(new ApiKeyInfo(), {
        id: k.id,
        prefix: k.prefix,
        createdAt: unixSeconds(k.createdAt),
        revokedAt: unixSeconds(k.revokedAt),
      }),
    ),
  });
}

export function toLedgerEntry(row: CreditLedgerEntryEntity): LedgerEntry {
  return Object.assign(new LedgerEntry(), {
    id: row.id,
    delta: row.delta,
    balanceAfter: row.balanceAfter,
    kind: row.kind,
    reason: row.reason,
    requestId: row.requestId,
    createdAt: unixSeconds(row.createdAt),
  });
}

import type { CallbackDeliveryEntity } from '../storage/entities/callback-delivery.entity';
import { CallbackDelivery } from './callback-delivery.type';
import { unixSeconds } from './unix-time';

export function toCallbackDelivery(row: CallbackDeliveryEntity): CallbackDelivery {
  return {
    id: row.id,
    url: row.url,
    event: row.event,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: unixSeconds(row.createdAt),
    deliveredAt: unixSeconds(row.deliveredAt),
    nextAttemptAt: unixSeconds(row.nextAttemptAt),
  };
}

import type { DatasetOrderView } from './dataset.service';
import type { Mail } from '../platform/mailer';

export type DatasetMailKind = 'confirmation' | 'receipt' | 'invoice';

const money = (order: DatasetOrderView) => `${order.amount.toFixed(2)} ${order.currency}`;

/**
 * The transactional emails of a dataset order, as plain text: the order confirmation and the
 * receipt when it is paid, the invoice (with the download link) when its file is ready.
 */
export function datasetMail(
  kind: DatasetMailKind,
  to: string,
  order: DatasetOrderView,
  chargeId?: string,
): Mail {
  const lines = [`Order ${order.orderRef}`, order.description, `Amount: ${money(order)}`];
  switch (kind) {
    case 'confirmation':
      return {
        to,
        subject: `Order confirmation ${order.orderRef}`,
        text: ['We received your dataset order; the file will follow within minutes.', ...lines].join('\n'),
      };
    case 'receipt':
      return {
        to,
        subject: `Receipt for order ${order.orderRef}`,
        text: [`Payment received: ${money(order)} (charge ${chargeId ?? 'n/a'}).`, ...lines].join('\n'),
      };
    case 'invoice':
      return {
        to,
        subject: `Invoice for order ${order.orderRef}`,
        text: [
          `Invoice ${order.orderRef}`,
          ...Object.entries(order.records.counts).map(([tech, n]) => `${tech}: ${n} records`),
          ...lines,
          `Download (link expires): ${order.dataset.url ?? ''}`,
        ].join('\n'),
      };
  }
}

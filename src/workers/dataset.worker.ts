import type { JobContext, JobHandler } from '../jobs';
import type { DatasetJobPayload, DatasetService } from '../services/datasets/dataset.service';
import type { Mail, Mailer } from '../services/platform/mailer';

/** Computes a dataset quote (its websites and price) and sends the quote callback. */
export function createDatasetQuoteHandler(datasets: DatasetService): JobHandler<DatasetJobPayload> {
  return async (payload: DatasetJobPayload, context: JobContext) => {
    await datasets.computeQuote(payload, context.attempt, context.maxAttempts);
    context.logger.info({ orderRef: payload.orderRef }, 'dataset quoted');
  };
}

/** Builds a paid dataset's ZIP and sends the completion callback with its link. */
export function createDatasetBuildHandler(datasets: DatasetService): JobHandler<DatasetJobPayload> {
  return async (payload: DatasetJobPayload, context: JobContext) => {
    await datasets.build(payload);
    context.logger.info({ orderRef: payload.orderRef }, 'dataset built');
  };
}

/** Sends one transactional email (retried by the queue while the relay refuses it). */
export function createEmailHandler(mailer: Mailer): JobHandler<Mail> {
  return async (mail: Mail) => {
    await mailer.send(mail);
  };
}

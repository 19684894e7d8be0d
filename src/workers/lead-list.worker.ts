import type { JobContext, JobHandler } from '../jobs';
import type { LeadListService, ListJobPayload } from '../services/lists/lead-list.service';

/** Calculates a lead list (set-based SQL), writes its files, and marks it Ready, Insufficient or Failed. */
export function createLeadListHandler(lists: LeadListService): JobHandler<ListJobPayload> {
  return async (payload: ListJobPayload, context: JobContext) => {
    await lists.calculate(payload, context.attempt, context.maxAttempts);
    context.logger.info({ listId: payload.listId }, 'lead list calculated');
  };
}

/** Writes a Ready list's full.zip (the follow-up of list.calculate). */
export function createLeadListFilesHandler(lists: LeadListService): JobHandler<ListJobPayload> {
  return async (payload: ListJobPayload, context: JobContext) => {
    await lists.writeFullFile(payload);
    context.logger.info({ listId: payload.listId }, 'lead list full file written');
  };
}

import { ValidationError } from '../errors';

/** Longest accepted input: 64 (local part) + 1 + 255 (domain). */
export const MAX_EMAIL_INPUT_LENGTH = 320;

/**
 * The one check of what may be verified at all, for GraphQL, the REST facade (through GraphQL)
 * and the verifier alike: a non-empty string of at most 320 characters. Anything else within
 * those bounds is an input whose verdict may be `invalid`, never a refusal.
 */
export function requireEmailInput(email: unknown): string {
  if (typeof email !== 'string' || email.length === 0)
    throw new ValidationError('email', 'email is required');
  if (email.length > MAX_EMAIL_INPUT_LENGTH) {
    throw new ValidationError('email', `email must be at most ${MAX_EMAIL_INPUT_LENGTH} characters`);
  }
  return email;
}

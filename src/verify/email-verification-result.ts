/** The four verdicts of the spec's `reachable` field. */
export const REACHABLE_VALUES = ['safe', 'risky', 'invalid', 'unknown'] as const;
export type Reachable = (typeof REACHABLE_VALUES)[number];

/** The spec's "Email verification result", field for field. */
export interface EmailVerificationResult {
  /** The input address, as given. */
  email: string;
  /** Domain part of the address, lower case and in its ASCII (punycode) form; '' when there is none. */
  domain: string;
  reachable: Reachable;
  disposable: boolean;
  roleAccount: boolean;
  /** The domain can receive mail: MX records (not a null MX), or an A/AAAA record as implicit MX. */
  mxValid: boolean;
  /** An SMTP session was opened with one of the domain's mail servers (a 220 greeting). */
  connection: boolean;
  inboxFull: boolean;
  catchAll: boolean;
  /** The server accepted the address as a recipient. */
  deliverable: boolean;
  disabled: boolean;
  syntaxValid: boolean;
}

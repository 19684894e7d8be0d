import roleBasedLocalParts from 'role-based-email-addresses';

const ROLE_LOCAL_PARTS: ReadonlySet<string> = new Set(roleBasedLocalParts.map((part) => part.toLowerCase()));

/**
 * A role account is a team or function mailbox (admin@, sales@…). Sub-addressing is ignored
 * ("sales+eu" is still sales) because the tag does not change who reads the mailbox.
 */
export function isRoleAccount(localPart: string): boolean {
  const base = localPart.toLowerCase().split('+')[0];
  return ROLE_LOCAL_PARTS.has(base);
}

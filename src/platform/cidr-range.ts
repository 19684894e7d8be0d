import { isIP } from 'node:net';

/**
 * A CIDR range as a setting spells it (ALLOWED_PRIVATE_RANGES), read here so the configuration can
 * refuse a malformed one at start with a message naming the setting.
 */
export function parseCidr(
  text: string,
): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | { error: string } {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(text.trim());
  if (!match) return { error: `"${text}" is not a CIDR range such as 127.0.0.0/8 or fd00::/8` };
  const network = match[1].replace(/^\[|\]$/g, '');
  const family = isIP(network);
  if (family === 0) return { error: `"${text}": ${network} is not an IP address` };
  const prefix = Number(match[2]);
  const max = family === 4 ? 32 : 128;
  if (prefix > max) return { error: `"${text}": the prefix length must be 0 to ${max}` };
  return { network, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

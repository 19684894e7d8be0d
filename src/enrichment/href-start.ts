/**
 * Whether an href may start with a scheme whose first letter is one of `initials` (lowercase),
 * before a regex such as /^\s*(?:tel|callto):/i is run on it: false only when its first character
 * is printable ASCII and no such letter in either case. Most links of a page start with "h" or "/",
 * and are then not handed to the regex at all.
 */
export function hrefMayStartWith(href: string, initials: string): boolean {
  const code = href.charCodeAt(0);
  // White space (ASCII or not), a control character or an empty href: the regex decides.
  if (!(code > 0x20 && code < 0x80)) return true;
  // Setting 0x20 lowercases an ASCII letter and makes no other printable character a letter.
  const lower = code | 0x20;
  for (let k = 0; k < initials.length; k++) if (initials.charCodeAt(k) === lower) return true;
  return false;
}

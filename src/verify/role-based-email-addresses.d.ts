/** The package ships plain JavaScript: an array of lower-case local parts (plus its groups). */
declare module 'role-based-email-addresses' {
  const localParts: string[];
  export = localParts;
}

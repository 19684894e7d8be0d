/**
 * SRV owner names (prefixed to the domain) that organisations commonly publish and whose targets
 * are often hosts of their own: telephony, mail client autoconfiguration, chat, calendars and
 * directories. A short list on purpose: each costs one DNS question in the inline pass.
 */
export const WELL_KNOWN_SRV_NAMES: readonly string[] = [
  '_sip._tls',
  '_sip._tcp',
  '_sip._udp',
  '_sipfederationtls._tcp',
  '_autodiscover._tcp',
  '_xmpp-server._tcp',
  '_xmpp-client._tcp',
  '_caldavs._tcp',
  '_caldav._tcp',
  '_carddavs._tcp',
  '_carddav._tcp',
  '_imaps._tcp',
  '_submission._tcp',
  '_submissions._tcp',
  '_pop3s._tcp',
  '_ldap._tcp',
  '_kerberos._tcp',
  '_matrix._tcp',
];

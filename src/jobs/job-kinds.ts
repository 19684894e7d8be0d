/**
 * Every job kind of the service. A worker refuses to start unless each kind here has exactly one
 * registered handler (src/workers/register-handlers.ts), so a job can never sit in the table with
 * nobody able to run it. Add a kind here together with its handler.
 */
export const JobKinds = {
  callbackDelivery: 'callback.deliver',
  subdomainDiscovery: 'subdomains.discover',
  analysis: 'analysis.run',
  siteIndex: 'site.index',
  leadList: 'list.calculate',
  leadListFiles: 'list.files',
  datasetQuote: 'dataset.quote',
  datasetBuild: 'dataset.build',
  emailSend: 'email.send',
  vulnerabilityChanges: 'vulnerability.changes',
} as const;

export type JobKind = (typeof JobKinds)[keyof typeof JobKinds];

export const JOB_KINDS: readonly JobKind[] = Object.values(JobKinds);

import { JobHandlerRegistry, JobKinds } from '../jobs';
import type { Services } from '../services/services';
import { createAnalysisHandler } from './analysis.worker';
import { createCallbackDeliveryHandler } from './callback-delivery.worker';
import type { CallbackPost } from './callback-http-client';
import { createDatasetBuildHandler, createDatasetQuoteHandler, createEmailHandler } from './dataset.worker';
import { createLeadListFilesHandler, createLeadListHandler } from './lead-list.worker';
import { createSiteIndexHandler } from './site-index.worker';
import { createSubdomainDiscoveryHandler } from './subdomain-discovery.worker';
import { createVulnerabilityChangesHandler } from './vulnerability-changes.worker';

/** What the service's job handlers need: the service graph, plus the callback HTTP client. */
export interface JobHandlerDependencies {
  services: Services;
  callbackPost: CallbackPost;
}

/** Registers the one handler of every job kind in src/jobs/job-kinds.ts. */
export function registerJobHandlers(
  registry: JobHandlerRegistry,
  deps: JobHandlerDependencies,
): JobHandlerRegistry {
  const { services } = deps;
  registry.register(
    JobKinds.callbackDelivery,
    createCallbackDeliveryHandler(services.callbacks, {
      headerPrefix: services.config.HEADER_PREFIX,
      post: deps.callbackPost,
    }),
  );
  registry.register(JobKinds.analysis, createAnalysisHandler(services));
  registry.register(JobKinds.subdomainDiscovery, createSubdomainDiscoveryHandler(services.subdomains));
  registry.register(
    JobKinds.siteIndex,
    createSiteIndexHandler(services.analyzer, (jobId, host, accounts) =>
      services.monitors.chargeRecrawl(jobId, host, accounts),
    ),
  );
  registry.register(JobKinds.leadList, createLeadListHandler(services.lists));
  registry.register(JobKinds.leadListFiles, createLeadListFilesHandler(services.lists));
  registry.register(JobKinds.datasetQuote, createDatasetQuoteHandler(services.datasets));
  registry.register(JobKinds.datasetBuild, createDatasetBuildHandler(services.datasets));
  registry.register(JobKinds.emailSend, createEmailHandler(services.mailer));
  registry.register(
    JobKinds.vulnerabilityChanges,
    createVulnerabilityChangesHandler(services.vulnerabilityChanges),
  );
  return registry;
}

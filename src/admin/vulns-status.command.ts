import type { Services } from '../services/services';
import type { VulnStatus } from '../services/vulns/vulnerability.service';

/** `npm run admin -- vulns:status`: per source the records, products, newest `modified`, last import. */
export async function vulnsStatus(services: Services): Promise<VulnStatus> {
  return services.vulnerabilities.status();
}

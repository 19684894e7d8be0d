import { SingleBar } from 'cli-progress';
import type { Services } from '../services/services';
import type { VulnImportSummary } from '../services/vulns/vulnerability.service';
import { VulnFormatError } from '../services/vulns/vuln-records';
import { ValidationError } from '../errors';

/**
 * `npm run admin -- vulns:import --file F`: an NVD CVE API 2.0 document (.json or .json.gz) or OSV
 * JSON (a record, a folder or a zip of them). A progress bar per pass (check, then write) when
 * stdout is a terminal; the summary as the command's JSON result.
 */
export async function vulnsImport(services: Services, file: string): Promise<VulnImportSummary> {
  const bar = process.stdout.isTTY
    ? new SingleBar({ format: '{pass} [{bar}] {percentage}%', stream: process.stderr })
    : null;
  let pass = '';
  try {
    return await services.vulnerabilities.importFile(file, (now, read, total) => {
      if (!bar) return;
      if (now !== pass) {
        if (pass) bar.stop();
        pass = now;
        bar.start(total, 0, { pass: now === 'check' ? 'checking' : 'writing ' });
      }
      bar.update(read);
    });
  } catch (error) {
    // A file that is not what it should be is the operator's input: its message, no stack.
    if (error instanceof VulnFormatError) throw new ValidationError('file', error.message);
    throw error;
  } finally {
    bar?.stop();
  }
}

import type { PackProblem } from '../detection/pack-validator';
import type { FingerprintStatus, LoadResult } from '../services/fingerprints/fingerprint-pack.service';
import type {
  FingerprintPackLoad,
  FingerprintPackProblem,
  FingerprintPacksStatus,
} from './fingerprint-pack.type';
import { unixSeconds } from './unix-time';

export function toFingerprintPackProblem(problem: PackProblem): FingerprintPackProblem {
  return {
    severity: problem.severity,
    file: problem.file,
    technology: problem.technology ?? null,
    field: problem.field ?? null,
    message: problem.message,
  };
}

export function toFingerprintPacksStatus(status: FingerprintStatus): FingerprintPacksStatus {
  return {
    version: status.version,
    stored: status.stored,
    activatedAt: unixSeconds(status.activatedAt),
    activatedBy: status.activatedBy,
    packs: status.packs.map((pack) => ({ ...pack, loadedAt: unixSeconds(pack.loadedAt) })),
    corrections: status.corrections,
    history: status.history.map((entry) => ({ ...entry, activatedAt: unixSeconds(entry.activatedAt) })),
    process: status.process,
  };
}

export function toFingerprintPackLoad(result: LoadResult): FingerprintPackLoad {
  return { ...result, warnings: result.warnings.map(toFingerprintPackProblem) };
}

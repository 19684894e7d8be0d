/**
 * Technology detection: fingerprints compiled once, pages matched synchronously without I/O.
 * Public surface for the services and workers; everything else in this folder is internal.
 */
export { withParsedHtml, type DetectionInput, type RenderedInput } from './detection-input';
export type {
  DetectedCategory,
  DetectedTechnology,
  DetectionResult,
  Evidence,
  EvidenceKind,
  SkippedTechnology,
} from './detection-result';
export { Fingerprints, type Category, type FingerprintWarning, type Technology } from './fingerprints';
export {
  defaultFingerprintDirectory,
  loadFingerprints,
  locateFingerprintFiles,
  type LoadFingerprintsOptions,
} from './fingerprints-loader';
export { boundHtml, DetectionEngine, LIMITS, type EngineOptions } from './detection-engine';
export { CONTEXT_RULES, type ContextRuleName } from './context-rules';
export { denoise, DENOISE_THRESHOLD } from './denoise';
export { mergeResults } from './merge-results';
export { baseSlug } from './slug';
export {
  CORRECTIONS_PACK_DIR,
  correctedPack,
  correctionsFor,
  correctionsSourceFor,
  loadCorrectedFingerprints,
  type LoadCorrectedOptions,
} from './corrections';
export { cpeValueOf, isCpe23, versionedCpe, versionedCpes } from './cpe';
export { CPE_MAP_FILE, readCpeMap, type CpeMapEntry } from './cpe-map';
export {
  PACKAGE_MAP_FILE,
  packageMap,
  packageOf,
  purlOf,
  readPackageMap,
  type PackageMapEntry,
} from './package-map';

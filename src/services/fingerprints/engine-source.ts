import { DetectionEngine, type Fingerprints } from '../../detection';

/**
 * Where a unit of work takes its engine from when it starts (FingerprintSource: the active set,
 * switched live). A fixed engine is a source too, for tests and tools that compile their own.
 */
export interface EngineSource {
  current(): DetectionEngine;
}

export function engineSourceOf(engine: DetectionEngine | EngineSource): EngineSource {
  return engine instanceof DetectionEngine ? { current: () => engine } : engine;
}

/** The fingerprints to read now: those of the current engine (or fixed ones). */
export function fingerprintsOf(source: Fingerprints | EngineSource): () => Fingerprints {
  if ('current' in source && typeof source.current === 'function') {
    const engines = source;
    return () => engines.current().fingerprints;
  }
  const fixed = source as Fingerprints;
  return () => fixed;
}

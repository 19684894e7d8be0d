import { parentPort, workerData } from 'node:worker_threads';
import { type LayersToValidate, validateLayers } from './pack-validation';

/**
 * The entry file of validateLayersOffThread's worker thread (started by path, never imported): one
 * validation, its problems posted back, then the thread ends.
 */
if (!parentPort) throw new Error('pack-validation-worker runs as a worker thread (validateLayersOffThread)');
try {
  parentPort.postMessage({ problems: validateLayers(workerData as LayersToValidate) });
} catch (error) {
  parentPort.postMessage({ error: (error as Error).message });
}

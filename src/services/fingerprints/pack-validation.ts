import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { validatePack, type PackContext, type PackProblem } from '../../detection/pack-validator';
import { overlayPacks, type RawPack } from '../../detection/raw-pack';
import { parseLayer, type PackLayer } from './pack-set';

/** What a validation is asked: the set's layers, the first one to check, and the pack being loaded. */
export interface LayersToValidate {
  layers: PackLayer[];
  /** The layers from this index upwards are checked, each over the layers below it. */
  from: number;
  /** The pack being loaded: its warnings are kept, and its problems name no pack before the file. */
  subject: string | null;
}

/** Checks a set's layers; the CLI runs it inline, the API on a worker thread. */
export type LayersValidator = (request: LayersToValidate) => Promise<PackProblem[]>;

/** What an overlay laid over `raw` may name: its technologies, categories and groups. */
export function contextOf(raw: RawPack): PackContext {
  return {
    technologies: new Set(Object.keys(raw.technologies)),
    categories: new Set(Object.keys(raw.categories).map(Number)),
    groups: new Set(Object.keys(raw.groups).map(Number)),
  };
}

/**
 * Every error of the layers from `from` upwards, each checked over the layers below it, and the
 * subject's warnings. Problems of a layer other than the subject name their pack before the file.
 * Pure (files in, problems out), so it runs the same on a worker thread.
 */
export function validateLayers({ layers, from, subject }: LayersToValidate): PackProblem[] {
  const problems: PackProblem[] = [];
  let below: RawPack | null =
    from > 0 ? overlayPacks(...(layers.slice(0, from).map(parseLayer) as [RawPack])) : null;
  for (let i = from; i < layers.length; i++) {
    const layer = layers[i];
    const report = validatePack(layer.source, below ? contextOf(below) : undefined);
    const own = layer.name === subject;
    problems.push(
      ...report.problems
        .filter((problem) => own || problem.severity === 'error')
        .map((problem) => (own ? problem : { ...problem, file: `${layer.name}: ${problem.file}` })),
    );
    if (!report.ok) return problems;
    const raw = parseLayer(layer);
    below = below ? overlayPacks(below, raw) : raw;
  }
  return problems;
}

export const validateLayersInline: LayersValidator = (request) => Promise.resolve(validateLayers(request));

/**
 * How to start pack-validation-worker: the compiled JavaScript beside this module in dist/, else its
 * TypeScript source through @swc-node/register under jest (a worker thread loads files through
 * Node's own loader, not the one that loaded its parent), as sqlite-script-worker is started.
 */
function workerEntry(): { file: string; execArgv: string[] } {
  const compiled = join(__dirname, 'pack-validation-worker.js');
  if (existsSync(compiled)) return { file: compiled, execArgv: [] };
  const source = join(__dirname, 'pack-validation-worker.ts');
  if (extname(__filename) === '.ts' && existsSync(source))
    return { file: source, execArgv: ['--require', require.resolve('@swc-node/register')] };
  throw new Error(`The pack validation thread's file ${compiled} is missing: run \`npm run build\``);
}

/**
 * validateLayers on a worker thread of its own, started for this one validation: compiling every
 * pattern of a whole base pack takes long enough to hold up the requests an API process serves.
 * Loads are rare, so the thread's start is paid per load rather than kept idle.
 */
export const validateLayersOffThread: LayersValidator = (request) =>
  new Promise<PackProblem[]>((resolve, reject) => {
    const entry = workerEntry();
    const worker = new Worker(entry.file, { execArgv: entry.execArgv, workerData: request });
    let settled = false;
    worker.once('message', (message: { problems?: PackProblem[]; error?: string }) => {
      settled = true;
      if (message.problems) resolve(message.problems);
      else reject(new Error(`pack validation failed: ${message.error}`));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the pack validation thread exited (code ${code}) without an answer`));
    });
  });

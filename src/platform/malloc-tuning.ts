/**
 * glibc malloc settings that `npm start` and `npm run worker` give the service's processes (Linux;
 * other C libraries ignore them). Without them a process that streamed a large list file kept its
 * peak: V8 frees the page buffers of the file only at a full collection (about 64 MB of them at a
 * time), and glibc, whose threshold for giving large blocks their own mapping rises after the first
 * one is freed, then served them from heaps it does not hand back (figures in docs/performance.md).
 * - MALLOC_MMAP_THRESHOLD_: blocks of 128 KiB or more are mapped on their own and unmapped when
 *   freed (setting it also stops the threshold from rising);
 * - MALLOC_ARENA_MAX: two heaps instead of eight per core for the threads of zlib and SQLite.
 */
export const MALLOC_TUNING: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/** Whether this process was started with the settings (for a hint in the start-up log). */
export function mallocTuned(env: NodeJS.ProcessEnv = process.env): boolean {
  return Object.keys(MALLOC_TUNING).every((name) => env[name] !== undefined);
}

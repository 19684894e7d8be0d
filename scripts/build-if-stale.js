// Compiles the TypeScript only when a source is newer than the last build, so `npm start`,
// `npm run worker` and `npm run admin` start at once on a current dist/. A compile (the first start,
// or after a change) says so on stderr, a line before and one after, so a wait of some 20 s is not
// silent; stdout stays the service's JSON logs (or the admin command's JSON).
// `--check` only says "current" or "stale" (exit 0); `--dist DIR` checks (and compiles into) another
// output directory.
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const distIndex = args.indexOf('--dist');
const dist = distIndex >= 0 ? args[distIndex + 1] : join(root, 'dist');
const SOURCES = ['src', 'bench', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), 0);
}

// The build is incremental (tsconfig.build.json): tsc rewrites only the outputs whose source
// changed, and its build-info file only on a change. So the build's time is the build-info file's,
// which `npm run build` and this script touch after each compile (a source saved unchanged compiles
// to nothing, and would otherwise look newer than the build for ever).
const buildInfo = join(dist, '.tsbuildinfo');

function stale() {
  if (!existsSync(join(dist, 'src', 'main.js')) || !existsSync(buildInfo)) return true;
  const sources = SOURCES.map((name) => join(root, name)).filter((path) => existsSync(path));
  return Math.max(...sources.map(newest)) > statSync(buildInfo).mtimeMs;
}

if (args.includes('--check')) {
  console.log(stale() ? 'stale' : 'current');
  process.exit(0);
}
if (stale()) {
  const started = Date.now();
  console.error('compiling TypeScript (first start or sources changed)…');
  const tsc = require.resolve('typescript/bin/tsc');
  // Another output directory keeps its own build-info file, so it never takes dist/'s for its own.
  const outDir = distIndex >= 0 ? ['--outDir', dist, '--tsBuildInfoFile', buildInfo] : [];
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), ...outDir], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error('compiling TypeScript failed (the errors are above)');
    process.exit(result.status ?? 1);
  }
  const now = new Date();
  utimesSync(buildInfo, now, now);
  console.error(`compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

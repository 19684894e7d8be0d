// Compiles the TypeScript only when a source is newer than the last build, so `npm start`,
// `npm run worker` and `npm run admin` start at once on a current dist/ and print nothing of tsc.
// `--check` only says "current" or "stale" (exit 0); `--dist DIR` checks another output directory.
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
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

function stale() {
  // tsc rewrites every output on each build, so the entry point's time is the build's time.
  const built = join(dist, 'src', 'main.js');
  if (!existsSync(built)) return true;
  const sources = SOURCES.map((name) => join(root, name)).filter((path) => existsSync(path));
  return Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
}

if (args.includes('--check')) {
  console.log(stale() ? 'stale' : 'current');
  process.exit(0);
}
if (stale()) {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}

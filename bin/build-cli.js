'use strict';
/**
 * The CLI bundle: dist/cli/main.js is lib/cli/main.ts and every source it imports, compiled ahead of time by
 * esbuild (packages stay in node_modules, loaded when first used; each command's code runs only when that
 * command does), so `fleetbench` starts without compiling TypeScript. dist/cli/commands.json holds each
 * command's help line (help loads no command), dist/cli/build.json the hash of the sources the bundle was
 * built from. `npm ci` builds it (the `prepare` script); bin/fleetbench.js rebuilds it first when any of those
 * sources changed, so it is never stale.
 *
 *   node bin/build-cli.js          # build (no-op when fresh; --force builds anyway)
 */
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'dist', 'cli');
const ENTRY = 'lib/cli/main.ts';
const FILES = ['main.js', 'commands.json', 'build.json']; // build.json last: it says the others are complete

/** sha256 over this builder and each source (paths relative to `root`); a missing source throws. */
function sourceHash(root, inputs) {
  const h = crypto.createHash('sha256');
  h.update(fs.readFileSync(__filename));
  for (const rel of inputs) {
    h.update(`\0${rel}\0`);
    h.update(fs.readFileSync(path.join(root, rel)));
  }
  return h.digest('hex');
}

/** The bundle in `outDir` was built from the sources now in `root`. */
function isFresh(root = ROOT, outDir = OUT_DIR) {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(outDir, 'build.json'), 'utf8'));
    return (
      FILES.every((f) => fs.existsSync(path.join(outDir, f))) &&
      sourceHash(root, info.inputs) === info.sourceHash
    );
  } catch {
    return false;
  }
}

/**
 * esbuild moves each module into dist/cli/main.js: a source's own `__dirname` / `__filename` (data files,
 * examples, the agent's sources, found relative to the source) become paths relative to the bundle.
 */
const sourceLocations = {
  name: 'source-locations',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.split(path.sep).includes('node_modules')) return undefined;
      let text = await fs.promises.readFile(args.path, 'utf8');
      if (/\b__(dirname|filename)\b/.test(text)) {
        const rel = (p) => JSON.stringify(path.relative(OUT_DIR, p));
        text = text
          .replace(/\b__dirname\b/g, `require('node:path').join(__dirname, ${rel(path.dirname(args.path))})`)
          .replace(/\b__filename\b/g, `require('node:path').join(__dirname, ${rel(args.path)})`);
      }
      return { contents: text, loader: 'ts' };
    });
  },
};

async function build({ force = false } = {}) {
  if (!force && isFresh()) return false;
  const esbuild = require('esbuild');
  // built next to dist/cli (same depth: the relative source locations hold), then moved in
  fs.mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(ROOT, 'dist', '.cli-'));
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [ENTRY],
      outfile: path.join(tmp, 'main.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      metafile: true,
      logLevel: 'error',
      plugins: [sourceLocations],
    });
    const inputs = Object.keys(result.metafile.inputs)
      .filter((p) => !p.split('/').includes('node_modules'))
      .sort();
    // each command's help line, from the commands themselves (in a child: it loads every command's code)
    const commands = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(path.join(tmp, 'main.js'))}).commandManifest().then((m) => process.stdout.write(JSON.stringify(m, null, 2)))`,
      ],
      { encoding: 'utf8', env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } },
    );
    fs.writeFileSync(path.join(tmp, 'commands.json'), commands + '\n');
    fs.writeFileSync(
      path.join(tmp, 'build.json'),
      JSON.stringify({ entry: ENTRY, sourceHash: sourceHash(ROOT, inputs), inputs }, null, 2) + '\n',
    );
    fs.mkdirSync(OUT_DIR, { recursive: true });
    for (const f of FILES) fs.renameSync(path.join(tmp, f), path.join(OUT_DIR, f));
    return true;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = { build, isFresh, sourceHash, OUT_DIR };

if (require.main === module) {
  const t0 = Date.now();
  build({ force: process.argv.includes('--force') }).then(
    (built) => {
      if (built) process.stderr.write(`fleetbench: CLI bundle built in ${Date.now() - t0} ms (dist/cli)\n`);
    },
    (err) => {
      process.stderr.write(`fleetbench: CLI bundle build failed: ${err.stack ?? err}\n`);
      process.exitCode = 1;
    },
  );
}

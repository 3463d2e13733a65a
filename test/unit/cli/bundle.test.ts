/**
 * The compiled CLI (bin/build-cli.js): bin/fleetbench.js runs dist/cli/main.js, built from the sources as they
 * are (the hash in dist/cli/build.json), and loads a command's code only when that command runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'bin', 'fleetbench.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const builder = require('../../../bin/build-cli.js') as {
  isFresh(root?: string, outDir?: string): boolean;
  sourceHash(root: string, inputs: string[]): string;
  OUT_DIR: string;
};

let tmp: string;
beforeAll(() => (tmp = mkdtempSync(path.join(tmpdir(), 'fb-bundle-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the bin with a preload that lists, at exit, every module the process loaded. */
function modulesLoadedBy(args: string[]): { status: number | null; stdout: string; modules: string[] } {
  const preload = path.join(tmp, 'dump-modules.js');
  const out = path.join(tmp, `modules-${args[0]}.txt`);
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, Object.keys(require.cache).join('\\n')));`,
  );
  const r = spawnSync(process.execPath, ['-r', preload, BIN, ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, modules: readFileSync(out, 'utf8').split('\n') };
}

describe('the CLI bundle', () => {
  it('is built from the sources as they are now (its source hash)', () => {
    expect(spawnSync(process.execPath, [BIN, '--help'], { cwd: ROOT }).status).toBe(0); // builds when stale
    const info = JSON.parse(readFileSync(path.join(builder.OUT_DIR, 'build.json'), 'utf8')) as {
      sourceHash: string;
      inputs: string[];
    };
    expect(builder.sourceHash(ROOT, info.inputs)).toBe(info.sourceHash);
    const commands = readdirSync(path.join(ROOT, 'lib', 'cli', 'commands')).map(
      (f) => `lib/cli/commands/${f}`,
    );
    expect(info.inputs).toEqual(expect.arrayContaining(['lib/cli/main.ts', ...commands]));
  });

  it('is stale when a source it was built from changes or goes', () => {
    const root = path.join(tmp, 'root');
    const out = path.join(tmp, 'out');
    mkdirSync(root);
    mkdirSync(out);
    writeFileSync(path.join(root, 'a.ts'), 'export const a = 1;\n');
    for (const f of ['main.js', 'commands.json']) writeFileSync(path.join(out, f), '');
    const info = { sourceHash: builder.sourceHash(root, ['a.ts']), inputs: ['a.ts'] };
    writeFileSync(path.join(out, 'build.json'), JSON.stringify(info));
    expect(builder.isFresh(root, out)).toBe(true);
    writeFileSync(path.join(root, 'a.ts'), 'export const a = 2;\n');
    expect(builder.isFresh(root, out)).toBe(false);
    rmSync(path.join(root, 'a.ts'));
    expect(builder.isFresh(root, out)).toBe(false);
  });

  it.each([[['--help']], [['validate', 'examples/quickstart.json']]])(
    '%j runs the bundle and loads no AWS SDK, DuckDB, CDK or tsx',
    (args) => {
      const r = modulesLoadedBy(args);
      expect(r.status).toBe(0);
      expect(r.modules).toContain(path.join(builder.OUT_DIR, 'main.js'));
      expect(r.modules.filter((m) => /[/\\](@aws-sdk|@duckdb|aws-cdk-lib|tsx)[/\\]/.test(m))).toEqual([]);
    },
  );

  it('--help lists every command as the commands themselves do (running the sources)', () => {
    const bundled = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', cwd: ROOT });
    const sources = spawnSync(
      process.execPath,
      ['-r', 'tsx/cjs', '-e', "require('./lib/cli/main.ts').main(['--help'])"],
      {
        encoding: 'utf8',
        cwd: ROOT,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    expect(sources.status).toBe(0);
    expect(bundled.stdout).toBe(sources.stdout);
    expect(bundled.stdout).toContain('idle-cost');
  });
});

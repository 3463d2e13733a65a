/**
 * `npm test` sets itself up: its pretest (test/setup/ensure-tools.sh) fills the project's .venv with the
 * Python tools, checks the Debian packages and builds FerretDB; jest puts .venv/bin first on the tests' PATH.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'test', 'setup', 'ensure-tools.sh');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');

function which(cmd: string): string {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
}

describe('test set-up', () => {
  it('npm test runs the set-up script first', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.pretest).toBe('bash test/setup/ensure-tools.sh');
  });

  it.each(['moto_server', 'cfn-lint', 'python3'])('the tests run %s from the project .venv', (cmd) => {
    expect(which(cmd)).toBe(path.join(VENV_BIN, cmd));
  });

  it('the .venv python has apache-otava 0.8.0', () => {
    const r = spawnSync(
      'python3',
      ['-c', 'from importlib.metadata import version; print(version("apache-otava"))'],
      { encoding: 'utf8' },
    );
    expect(r.stdout.trim()).toBe('0.8.0');
  });

  it('a second run installs nothing and prints nothing', () => {
    const r = spawnSync('bash', [SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, FLEETBENCH_SETUP_ONLY: 'python' },
    });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
  });

  it("a python3 that cannot make the .venv (Debian's without python3-venv) names python3-venv", () => {
    const r = spawnSync('bash', [SCRIPT], {
      encoding: 'utf8',
      env: {
        ...process.env,
        FLEETBENCH_SETUP_ONLY: 'debian',
        FLEETBENCH_SETUP_UID: '1000',
        FLEETBENCH_VENV: '/nonexistent/venv',
        PYTHON3: '/bin/false',
      },
    });
    expect(r.stderr).toBe('test setup: missing Debian packages; run: sudo apt-get install -y python3-venv\n');
  });

  it('not root and a Debian package missing: one line naming the exact command, exit 1', () => {
    const r = spawnSync('bash', [SCRIPT], {
      encoding: 'utf8',
      env: {
        ...process.env,
        FLEETBENCH_SETUP_ONLY: 'debian',
        FLEETBENCH_SETUP_UID: '1000',
        FLEETBENCH_CHROMIUM: '/nonexistent/chromium',
      },
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('test setup: missing Debian packages; run: sudo apt-get install -y chromium\n');
  });
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runMaven } from '../../../lib/build/maven';

/** A scratch root with a POM and a fake `mvn` that records its arguments, one a line. */
function fakeMaven(): { root: string; mvn: string; pom: string; args: () => string[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-mvn-flags-'));
  const pom = path.join(root, 'pom.xml');
  fs.writeFileSync(pom, '<project/>');
  const mvn = path.join(root, 'mvn');
  fs.writeFileSync(mvn, `#!/bin/sh\nfor a in "$@"; do echo "$a"; done > "${root}/args"\n`, { mode: 0o755 });
  const args = (): string[] => fs.readFileSync(path.join(root, 'args'), 'utf8').split('\n').filter(Boolean);
  return { root, mvn, pom, args };
}

describe('runMaven', () => {
  it('runs every build with strict checksums: a download whose checksum does not match fails the build', async () => {
    const { root, mvn, pom, args } = fakeMaven();
    try {
      await runMaven({ what: 'test build', root, mvn, pom, args: ['package'] });
      const seen = args();
      expect(seen.some((a) => a === '--strict-checksums' || a === '-C')).toBe(true);
      // the flags come before the POM and the goals
      expect(seen.slice(-3)).toEqual(['-f', pom, 'package']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('every other Maven call of the project', () => {
  const root = path.resolve(__dirname, '..', '..', '..');
  it("package.json's scripts and the shell scripts pass --strict-checksums to each mvn they run", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const shells = ['test/oracle/gen-ycsb-fixtures.sh', 'test/oracle/gen-ycsb-repeated-return.sh'].map((f) =>
      fs.readFileSync(path.join(root, f), 'utf8'),
    );
    const calls = [...Object.values(pkg.scripts), ...shells].flatMap((text) =>
      [...text.matchAll(/(^|[\s;&|(])mvn\s[^\n;&|]*/g)].map((m) => m[0].trim()),
    );
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.filter((c) => !/\s(--strict-checksums|-C)(\s|$)/.test(c))).toEqual([]);
  });
});

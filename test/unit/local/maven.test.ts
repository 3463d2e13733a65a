import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runMaven } from '../../../lib/local/maven';

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

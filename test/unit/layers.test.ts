/**
 * The layers, read from the imports (issue #18): lib/core and lib/aws never import lib/local; lib/core
 * imports neither the AWS SDK, the CDK, nor the disk (node:fs, node:os, child processes, sockets).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '../..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
    .sort();
}

/** Every module a file imports, re-exports, requires or imports dynamically (relative ones resolved). */
export function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
    ...text.matchAll(/\b(?:require|import)\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return specs.map((s) => (s.startsWith('.') ? path.join(path.dirname(file), s) : s));
}

const DISK_OR_CLOUD =
  /^(node:)?(fs|fs\/promises|os|child_process|net|http|https|dgram)$|^@aws-sdk\/|^aws-cdk-lib|^constructs$|^cdk-nag$/;

describe('layers', () => {
  it('finds imports of every form (the checker itself)', () => {
    expect(importsOf('lib/core/results/input.ts')).toEqual([
      'lib/core/contract/manifest',
      'lib/core/contract/summary',
      'lib/core/errors',
      'lib/core/store',
    ]);
    // type-only imports count too
    expect(importsOf('lib/open-store.ts')).toEqual([
      'lib/core/store',
      'lib/core/store',
      'lib/aws/s3-store',
      'lib/local/fs-store',
    ]);
  });

  it('lib/core imports no SDK, CDK or disk, and nothing from lib/local, lib/aws, lib/cli, lib/constructs', () => {
    const found: string[] = [];
    for (const file of sources('lib/core')) {
      for (const m of importsOf(file)) {
        const bad = DISK_OR_CLOUD.test(m) || /^lib\/(local|aws|cli|constructs)(\/|$)/.test(m);
        if (bad) found.push(`${file} -> ${m}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('lib/aws never imports lib/local', () => {
    const found = sources('lib/aws').flatMap((file) =>
      importsOf(file)
        .filter((m) => /^lib\/local(\/|$)/.test(m))
        .map((m) => `${file} -> ${m}`),
    );
    expect(found).toEqual([]);
  });

  it('lib/aws and lib/core are checked file by file (the listing is not empty by accident)', () => {
    expect(sources('lib/core')).toEqual(expect.arrayContaining(['lib/core/pipeline/aggregate.ts']));
    expect(sources('lib/aws')).toEqual(expect.arrayContaining(['lib/aws/s3-store.ts']));
  });
});

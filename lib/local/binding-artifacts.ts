/**
 * A user's YCSB binding named by Maven coordinates (an external target's `binding.maven`): resolved here,
 * with their transitive dependencies, from Maven Central (or the local Maven repository) into a cache
 * directory of jars — by `fleetbench run --local`, which hands them to the agents as file:// URIs, and by
 * `fleetbench start`, which uploads them under the results bucket's bindings/ prefix, where the loaders
 * may read them. The jars so found are added to the target's `binding.jars` before the run is planned;
 * the coordinates stay in the spec as the record of where they came from.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../core/errors';
import { repoRoot } from './maven';

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The jars (absolute paths) of these coordinates and their runtime dependencies, cached by the coordinates. */
export function resolveMavenJars(
  coords: readonly string[],
  options: { cacheDir?: string; mvn?: string; field?: string } = {},
): string[] {
  const key = createHash('sha256')
    .update([...coords].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(options.cacheDir ?? path.join(repoRoot(), '.tmp', 'bindings'), key);
  const jars = path.join(dir, 'lib');
  const done = path.join(dir, '.complete');
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const deps = coords
      .map((c) => {
        const [g, a, v] = c.split(':');
        return `<dependency><groupId>${escapeXml(g!)}</groupId><artifactId>${escapeXml(a!)}</artifactId><version>${escapeXml(v!)}</version></dependency>`;
      })
      .join('');
    writeFileSync(
      path.join(dir, 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>` +
        `<groupId>fleetbench</groupId><artifactId>user-binding</artifactId><version>0</version><packaging>pom</packaging>` +
        `<dependencies>${deps}</dependencies></project>\n`,
    );
    const mvn = options.mvn ?? process.env.FLEETBENCH_MVN ?? 'mvn';
    const r = spawnSync(
      mvn,
      [
        '-q',
        '-B',
        '-f',
        path.join(dir, 'pom.xml'),
        'dependency:copy-dependencies',
        `-DoutputDirectory=${jars}`,
        '-DincludeScope=runtime',
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) {
      const why = (r.stdout + r.stderr)
        .split('\n')
        .filter((l) => /ERROR/.test(l))
        .slice(0, 3)
        .join(' ');
      throw new InputError([
        {
          path: options.field ?? 'binding.maven',
          message: `cannot resolve ${coords.join(', ')} from Maven: ${why || r.error?.message || `mvn exited ${r.status}`}`,
        },
      ]);
    }
    writeFileSync(done, new Date().toISOString());
  }
  return readdirSync(jars)
    .filter((f) => f.endsWith('.jar'))
    .sort()
    .map((f) => path.join(jars, f));
}

/**
 * The raw spec with every custom binding's Maven coordinates resolved into jars: `place` turns a resolved
 * jar into the URI the loaders read it from (file:// locally; an upload to the results bucket on AWS).
 */
export async function withResolvedBindings(
  raw: unknown,
  place: (jar: string) => Promise<string> = async (jar) => pathToFileURL(jar).href,
  options: { cacheDir?: string; mvn?: string } = {},
): Promise<unknown> {
  const doc = structuredClone(raw) as { targets?: { binding?: { maven?: string[]; jars?: string[] } }[] };
  for (const [i, t] of (doc.targets ?? []).entries()) {
    const coords = t.binding?.maven ?? [];
    if (!coords.length) continue;
    const jars = resolveMavenJars(coords, { ...options, field: `targets[${i}].binding.maven` });
    const uris: string[] = [];
    for (const jar of jars) uris.push(await place(jar));
    t.binding!.jars = [...(t.binding!.jars ?? []), ...uris];
  }
  return doc;
}

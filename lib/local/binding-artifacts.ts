/**
 * A user's YCSB binding named by Maven coordinates (an external target's `binding.maven`): resolved here,
 * with their transitive dependencies, from Maven Central (or the local Maven repository) into a cache
 * directory of jars — by `fleetbench run --local`, which hands them to the agents as file:// URIs, and by
 * `fleetbench start`, which uploads them, with the binding's own file:// jars, under the results bucket's
 * bindings/ prefix, where the loaders may read them. The jars so found are added to the target's
 * `binding.jars` before the run is planned; the coordinates stay in the spec as the record of where they
 * came from.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InputError } from '../core/common/errors';
import { LoaderBuildError, repoRoot, runMaven, type MavenOptions } from '../build/maven';

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The jars (absolute paths) of these coordinates and their runtime dependencies, cached by the coordinates:
 * `mvn -q -B --strict-checksums -f <cache>/pom.xml dependency:copy-dependencies` by the one Maven runner (runMaven), so two
 * callers resolving the same coordinates at once resolve them once.
 */
export async function resolveMavenJars(
  coords: readonly string[],
  options: Omit<MavenOptions, 'log'> & { cacheDir?: string; field?: string } = {},
): Promise<string[]> {
  const key = createHash('sha256')
    .update([...coords].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(options.cacheDir ?? path.join(repoRoot(), '.tmp', 'bindings'), key);
  const jars = path.join(dir, 'lib');
  const done = path.join(dir, '.complete');
  if (!existsSync(done)) {
    const deps = coords
      .map((c) => {
        const [g, a, v] = c.split(':');
        return `<dependency><groupId>${escapeXml(g!)}</groupId><artifactId>${escapeXml(a!)}</artifactId><version>${escapeXml(v!)}</version></dependency>`;
      })
      .join('');
    try {
      await runMaven({
        what: 'binding resolution',
        pom: path.join(dir, 'pom.xml'),
        args: ['dependency:copy-dependencies', `-DoutputDirectory=${jars}`, '-DincludeScope=runtime'],
        ...options,
        upToDate: () => existsSync(done),
        before: () => {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true });
          writeFileSync(
            path.join(dir, 'pom.xml'),
            `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>` +
              `<groupId>fleetbench</groupId><artifactId>user-binding</artifactId><version>0</version><packaging>pom</packaging>` +
              `<dependencies>${deps}</dependencies></project>\n`,
          );
        },
        after: () => writeFileSync(done, new Date().toISOString()),
      });
    } catch (err) {
      if (!(err instanceof LoaderBuildError)) throw err;
      const why = err.output
        .filter((l) => /ERROR/.test(l))
        .slice(0, 3)
        .join(' ');
      throw new InputError([
        {
          path: options.field ?? 'binding.maven',
          message: `cannot resolve ${coords.join(', ')} from Maven: ${why || err.message}`,
        },
      ]);
    }
  }
  return readdirSync(jars)
    .filter((f) => f.endsWith('.jar'))
    .sort()
    .map((f) => path.join(jars, f));
}

/**
 * The raw spec with every custom binding's jars where the loaders read them, in one walk: its Maven
 * coordinates resolved into jars (above) and added to `binding.jars`, and each local jar, given as file:// or
 * resolved, handed to `place`, which returns the URI the loaders read it from: its file:// URI for a local
 * run (the default), an upload under the results bucket's bindings/ prefix for `fleetbench start`. Jars given
 * by other URIs (s3://) are kept as they are.
 */
export async function withResolvedBindings(
  raw: unknown,
  place: (jar: string) => Promise<string> = async (jar) => pathToFileURL(jar).href,
  options: Omit<MavenOptions, 'log'> & { cacheDir?: string } = {},
): Promise<unknown> {
  const doc = structuredClone(raw) as { targets?: { binding?: { maven?: string[]; jars?: string[] } }[] };
  for (const [i, t] of (doc.targets ?? []).entries()) {
    if (!t.binding || typeof t.binding !== 'object') continue;
    const coords = t.binding.maven ?? [];
    if (!coords.length && !t.binding.jars?.length) continue;
    const resolved = coords.length
      ? await resolveMavenJars(coords, { ...options, field: `targets[${i}].binding.maven` })
      : [];
    const uris: string[] = [];
    for (const [k, jar] of (t.binding.jars ?? []).entries())
      uris.push(
        jar.startsWith('file://') ? await place(localJar(jar, `targets[${i}].binding.jars[${k}]`)) : jar,
      );
    for (const jar of resolved) uris.push(await place(jar));
    t.binding.jars = uris;
  }
  return doc;
}

/** The path of a file:// jar, or an InputError naming the field. */
function localJar(uri: string, field: string): string {
  try {
    return fileURLToPath(uri);
  } catch (err) {
    throw new InputError([
      { path: field, message: `expected a file:// URI of a local jar: ${(err as Error).message}` },
    ]);
  }
}

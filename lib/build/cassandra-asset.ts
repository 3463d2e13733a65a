/**
 * The Apache Cassandra archive cassandra-ec2 nodes install (loader/cassandra-node: cassandra-all and its
 * dependencies from Maven Central), built with Maven when missing, and the Java the local nodes run on.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { CASSANDRA_VERSION, cassandraAssetName } from '../core/targets/cassandra-ec2/node';
import { LoaderBuildError, repoRoot, runMaven, type MavenOptions } from './maven';

export function cassandraAssetPath(root: string = repoRoot(), version: string = CASSANDRA_VERSION): string {
  return path.join(root, 'loader', 'cassandra-node', 'target', cassandraAssetName(version));
}

/**
 * The archive's path, after `mvn -q -B --strict-checksums -f loader/cassandra-node/pom.xml package` when it is not there or
 * `force` (`npm run build:cassandra`): the one Maven runner, under the repository's Maven lock, so parallel
 * callers build it once.
 */
export async function ensureCassandraAsset(
  root: string = repoRoot(),
  options: Omit<MavenOptions, 'root'> & { force?: boolean } = {},
): Promise<string> {
  const file = cassandraAssetPath(root);
  if (!options.force && fs.existsSync(file)) return file;
  await runMaven({
    what: 'Cassandra asset build',
    pom: path.join(root, 'loader', 'cassandra-node', 'pom.xml'),
    args: ['package'],
    ...options,
    root,
    upToDate: () => !options.force && fs.existsSync(file),
    after: () => {
      if (!fs.existsSync(file)) throw new LoaderBuildError(`the Cassandra build did not produce ${file}`);
    },
  });
  return file;
}

/** The `java` the local nodes run on: $JAVA_HOME/bin/java, else java on PATH (resolved). */
export async function localJava(): Promise<string> {
  const home = process.env.JAVA_HOME;
  if (home && fs.existsSync(path.join(home, 'bin', 'java'))) return path.join(home, 'bin', 'java');
  const { stdout } = await promisify(execFile)('bash', ['-c', 'readlink -f "$(command -v java)"'], {
    encoding: 'utf8',
  });
  const java = stdout.trim();
  if (!java) throw new LoaderBuildError('no java on PATH: the local Cassandra nodes need a Java 17');
  return java;
}

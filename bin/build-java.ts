/**
 * `npm run build:loader` and `npm run build:cassandra`: the Java builds through the one Maven runner
 * (lib/build/maven.ts, `mvn -q -B --strict-checksums -f <pom> ...`), so they wait for a Maven run already going on in this
 * checkout (a test's, a synth's) rather than race it, and the loader build leaves the stamp staleReason reads
 * (a plain `mvn` did not, so the next local run or synth built the loader again).
 */
import { ensureCassandraAsset } from '../lib/build/cassandra-asset';
import { ensureLoaderBuilt } from '../lib/build/maven';

const log = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(what: string | undefined): Promise<string> {
  if (what === 'loader') return (await ensureLoaderBuilt({ force: true, log })).bundleArchive;
  if (what === 'cassandra') return ensureCassandraAsset(undefined, { force: true, log });
  throw new Error('usage: tsx bin/build-java.ts loader|cassandra');
}

main(process.argv[2]).then(
  (built) => log(`built ${built}`),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  },
);

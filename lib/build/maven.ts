/**
 * Builds the Java side of the loader (loader/pom.xml) when it is missing or stale and says where its outputs
 * are: the YCSB loader bundle and DynamoDB Local with its natives. Also the one Maven runner (runMaven) of
 * every Java build here: this one, the Cassandra asset (cassandra-asset.ts) and a user's binding jars
 * (binding-artifacts.ts).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LoaderPaths {
  /** loader/ */
  loaderDir: string;
  /** Every jar a loader needs: YCSB core, HdrHistogram 2.1.12, AWS SDK v2, the fleetbench binding. */
  bundleLibDir: string;
  /** The same jars as an archive (entries lib/*.jar). */
  bundleArchive: string;
  /** DynamoDB Local and its dependencies. */
  dynamodbLocalLibDir: string;
  /** sqlite4java natives for DynamoDB Local (-Djava.library.path). */
  dynamodbLocalNativeDir: string;
  /** Java classpath for site.ycsb.Client with the binding (a `lib/*` wildcard). */
  ycsbClasspath: string;
}

/** The Java build could not run or failed; the message says what to install or what Maven printed. */
export class LoaderBuildError extends Error {
  /** Maven's last output lines, when Maven ran and failed. */
  readonly output: readonly string[];
  constructor(message: string, output: readonly string[] = []) {
    super(message);
    this.output = output;
    this.name = 'LoaderBuildError';
  }
}

export interface EnsureLoaderOptions extends MavenOptions {
  /** Build even if everything looks fresh. */
  force?: boolean;
}

export const BINDING_CLASS = 'dev.fleetbench.ycsb.DynamoDbClient';
const DYNAMODB_LOCAL_JAR = /^DynamoDBLocal-.*\.jar$/;
const STAMP = '.fleetbench-built';

export function repoRoot(): string {
  return path.resolve(__dirname, '..', '..');
}

export function loaderPaths(root: string = repoRoot()): LoaderPaths {
  const loaderDir = path.join(root, 'loader');
  const bundleLibDir = path.join(loaderDir, 'ycsb-binding', 'target', 'bundle', 'lib');
  return {
    loaderDir,
    bundleLibDir,
    bundleArchive: path.join(loaderDir, 'ycsb-binding', 'target', 'fleetbench-loader-bundle.tar.gz'),
    dynamodbLocalLibDir: path.join(loaderDir, 'dynamodb-local', 'target', 'lib'),
    dynamodbLocalNativeDir: path.join(loaderDir, 'dynamodb-local', 'target', 'native'),
    ycsbClasspath: path.join(bundleLibDir, '*'),
  };
}

/** Why a build is needed, or null if the outputs are complete and newer than every Maven input. */
export function staleReason(paths: LoaderPaths): string | null {
  const stampTime = mtime(path.join(paths.loaderDir, 'target', STAMP));
  if (stampTime === null) return 'never built';
  const missing = missingOutput(paths);
  if (missing !== null) return missing;
  const newer = mavenInputs(paths.loaderDir).find((f) => (mtime(f) ?? 0) > stampTime);
  return newer ? `${path.relative(paths.loaderDir, newer)} changed since the last build` : null;
}

/** What the build should have produced but is not there, or null. */
function missingOutput(paths: LoaderPaths): string | null {
  const jars = listDir(paths.bundleLibDir);
  if (!jars.some((f) => f.startsWith('fleetbench-ycsb-binding-')))
    return `no binding jar in ${paths.bundleLibDir}`;
  if (!fs.existsSync(paths.bundleArchive)) return `missing ${paths.bundleArchive}`;
  if (!listDir(paths.dynamodbLocalLibDir).some((f) => DYNAMODB_LOCAL_JAR.test(f))) {
    return `no DynamoDBLocal jar in ${paths.dynamodbLocalLibDir}`;
  }
  if (!listDir(paths.dynamodbLocalNativeDir).some((f) => /sqlite4java-linux-amd64/.test(f))) {
    return `no sqlite4java linux-amd64 native in ${paths.dynamodbLocalNativeDir}`;
  }
  return null;
}

/**
 * Maven's flags on every run: quiet (errors and what the build prints itself), batch (no prompts, no progress) and
 * strict checksums (`-C`: an artifact whose downloaded checksum does not match fails the build instead of a warning,
 * https://maven.apache.org/ref/current/maven-embedder/cli.html).
 */
export const MAVEN_FLAGS = ['-q', '-B', '--strict-checksums'] as const;

/** The loader build's goals (after `-f loader/pom.xml`). */
export const LOADER_BUILD_GOALS = ['package', '-DskipTests'];

/**
 * Makes sure the loader bundle and DynamoDB Local are built and fresh; builds them with
 * `mvn -q -B --strict-checksums -f loader/pom.xml package -DskipTests` if not (runMaven: parallel callers, jest workers among
 * them, are serialised by the repository's Maven lock, and only the first of them builds).
 */
export async function ensureLoaderBuilt(options: EnsureLoaderOptions = {}): Promise<LoaderPaths> {
  const paths = loaderPaths(options.root);
  if (!options.force && staleReason(paths) === null) return paths;
  let reason: string | null = 'forced';
  await runMaven({
    what: 'loader build',
    pom: path.join(paths.loaderDir, 'pom.xml'),
    args: LOADER_BUILD_GOALS,
    ...options,
    // another process may have built while we waited
    upToDate: () => !options.force && (reason = staleReason(paths)) === null,
    after: () => {
      fs.writeFileSync(
        path.join(paths.loaderDir, 'target', STAMP),
        `${new Date().toISOString()} ${reason}\n`,
      );
      const missing = missingOutput(paths);
      if (missing !== null)
        throw new LoaderBuildError(`Maven succeeded but the loader build is incomplete: ${missing}`);
    },
  });
  return paths;
}

/** How any Maven run of fleetbench's is made (the options every caller may pass on). */
export interface MavenOptions {
  /** Repository whose Maven lock serialises the run (default: this one). */
  root?: string;
  /** Maven executable (default: $FLEETBENCH_MVN or `mvn` on PATH). */
  mvn?: string;
  /** How long to wait for another process's Maven run (default 15 min). */
  lockTimeoutMs?: number;
  /** Receives Maven's output lines (default: discarded; the last ones are in the error if Maven fails). */
  log?: (line: string) => void;
}

export interface MavenRun extends MavenOptions {
  /** What the run is, for messages: "loader build", "Cassandra asset build", "binding resolution". */
  what: string;
  pom: string;
  /** Goals and properties, after MAVEN_FLAGS and `-f <pom>`. */
  args: string[];
  /** With the lock held, before Maven: true when the output is there already (another process made it), and Maven is not run. */
  upToDate?: () => boolean;
  /** With the lock held, before Maven runs. */
  before?: () => void;
  /** With the lock held, after Maven succeeded: record and check the output. */
  after?: () => void;
}

/** The repository's one Maven lock file: every Maven run of fleetbench's takes it (loader/target/.build.lock). */
export function mavenLockPath(root: string = repoRoot()): string {
  return path.join(root, 'loader', 'target', '.build.lock');
}

/**
 * The one way fleetbench runs Maven: `mvn -q -B --strict-checksums -f <pom> <args>` (MAVEN_FLAGS),
 * one run at a time per repository (the lock file, taken over from an owner that is gone; the local
 * Maven repository and the CPUs are shared), its output kept and, when it fails, the last 60 lines in
 * the LoaderBuildError with what to install when mvn or a JDK is missing. Returns whether Maven ran.
 */
export async function runMaven(run: MavenRun): Promise<boolean> {
  const lock = mavenLockPath(run.root);
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const release = await acquireLock(lock, run.lockTimeoutMs ?? 15 * 60_000);
  try {
    if (run.upToDate?.()) return false;
    run.before?.();
    await spawnMaven(run);
    run.after?.();
    return true;
  } finally {
    release();
  }
}

async function spawnMaven(run: MavenRun): Promise<void> {
  const mvn = run.mvn ?? process.env.FLEETBENCH_MVN ?? 'mvn';
  const args = [...MAVEN_FLAGS, '-f', run.pom, ...run.args];
  if (!fs.existsSync(run.pom)) throw new LoaderBuildError(`cannot run the ${run.what}: no ${run.pom}`);
  const output: string[] = [];
  const keep = (chunk: Buffer): void => {
    // without the colour resets Maven prints even in batch mode
    for (const line of chunk
      .toString('utf8')
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 200) output.shift();
      run.log?.(line);
    }
  };
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(mvn, args, { cwd: path.dirname(run.pom), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'ENOENT'
          ? new LoaderBuildError(
              `cannot run the ${run.what}: '${mvn}' not found on PATH. Install Maven 3.8+ and a JDK 17 ` +
                `(e.g. apt-get install maven openjdk-17-jdk-headless), or set FLEETBENCH_MVN.`,
            )
          : err,
      );
    });
    child.on('close', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
  });
  if (code !== 0) {
    const javaHint = output.some((l) => /JAVA_HOME|java: not found|No compiler is provided/i.test(l))
      ? '\nMaven needs a JDK 17 (java and javac on PATH or JAVA_HOME set).'
      : '';
    throw new LoaderBuildError(
      `${run.what} failed: ${mvn} ${args.join(' ')} exited with ${code}${javaHint}\n` +
        output.slice(-60).join('\n'),
      output,
    );
  }
}

/** Files whose change means the Java side must be rebuilt. */
function mavenInputs(loaderDir: string): string[] {
  const files = [
    path.join(loaderDir, 'pom.xml'),
    path.join(loaderDir, 'ycsb-binding', 'pom.xml'),
    path.join(loaderDir, 'dynamodb-local', 'pom.xml'),
  ];
  const walk = (dir: string): void => {
    for (const e of safeReaddir(dir)) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(path.join(loaderDir, 'ycsb-binding', 'src', 'main'));
  return files.filter((f) => fs.existsSync(f));
}

/** An exclusive lock file holding the owner's pid; a lock whose owner is gone is taken over. */
async function acquireLock(lockPath: string, timeoutMs: number): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(readText(lockPath));
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
      fs.rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new LoaderBuildError(
        `timed out after ${timeoutMs} ms waiting for another loader build (lock ${lockPath}, pid ${owner})`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function mtime(p: string): number | null {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return null;
  }
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function safeReaddir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function readText(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8').trim();
  } catch {
    return '';
  }
}

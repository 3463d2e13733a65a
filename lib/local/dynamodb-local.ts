/**
 * DynamoDB Local (the Maven Central artifact laid out by loader/dynamodb-local) as a child JVM on a free
 * loopback port: in memory, one shared database for every credential and region, telemetry off.
 *
 * DynamoDB Local has no option to choose its bind address (it listens on every interface); callers only ever
 * use the 127.0.0.1 endpoint returned here. The JVM is stopped by stop(), and killed if this Node process
 * exits first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { ensureLoaderBuilt, type LoaderPaths } from '../build/maven';

export interface DynamoDbLocal {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  port: number;
  /** The JVM's process id. */
  pid: number;
  /** Stops the JVM and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartDynamoDbLocalOptions {
  /** Port to listen on (default: a free loopback port). */
  port?: number;
  /** Java executable (default: $JAVA_HOME/bin/java if set, else `java`). */
  java?: string;
  /** Max heap of the JVM in MiB (default 512). */
  heapMb?: number;
  /** How long to wait until it answers (default 60 s). */
  startTimeoutMs?: number;
  /** Where the build put DynamoDB Local (default: ensureLoaderBuilt()). */
  paths?: LoaderPaths;
}

/** Credentials to use against DynamoDB Local: any key made of letters and digits is accepted. */
export const DYNAMODB_LOCAL_CREDENTIALS = {
  accessKeyId: 'fleetbenchlocal',
  secretAccessKey: 'fleetbenchlocal',
};

const SERVER_MAIN = 'com.amazonaws.services.dynamodbv2.local.main.ServerRunner';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      // another handler owns the stop (the CLI's orderly abort: its teardown still needs the server; the exit hook
      // above stops it at the end)
      if (process.listenerCount(sig) > 1) return;
      // nobody else handles the signal: its default behaviour (terminate), the server with it
      for (const child of live) child.kill('SIGKILL');
      process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
    });
  }
}

export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const paths = options.paths ?? (await ensureLoaderBuilt());
  const port = options.port ?? (await freeLoopbackPort());
  const java =
    options.java ?? (process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java');
  if (!fs.existsSync(paths.dynamodbLocalLibDir)) {
    throw new Error(
      `DynamoDB Local is not built: ${paths.dynamodbLocalLibDir} is missing (npm run build:loader)`,
    );
  }
  const args = [
    `-Xmx${options.heapMb ?? 512}m`,
    `-Djava.library.path=${paths.dynamodbLocalNativeDir}`,
    `-Dsqlite4java.library.path=${paths.dynamodbLocalNativeDir}`,
    '-cp',
    path.join(paths.dynamodbLocalLibDir, '*'),
    SERVER_MAIN,
    '-inMemory',
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];

  installExitHook();
  // its own process group: a terminal's Ctrl-C (SIGINT to the foreground group) reaches the CLI, whose teardown
  // still deletes the run's tables through this server; this process stops it (stop(), or the exit hook)
  const child = spawn(java, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child);
  const output: string[] = [];
  const keep = (chunk: Buffer): void => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (output.length > 100) output.splice(0, output.length - 100);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.on('close', () => {
      live.delete(child);
      resolve();
    });
  });
  let spawnError: Error | undefined;
  child.on('error', (err: NodeJS.ErrnoException) => {
    live.delete(child);
    spawnError =
      err.code === 'ENOENT'
        ? new Error(`cannot start DynamoDB Local: '${java}' not found (install a JDK 17)`)
        : err;
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || spawnError) {
      await Promise.race([exited, sleep(1000)]);
      return;
    }
    child.kill('SIGTERM');
    const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (spawnError) throw spawnError;
    if (child.exitCode !== null || child.signalCode !== null) {
      await Promise.race([exited, sleep(1000)]);
      throw new Error(
        `DynamoDB Local exited (${child.exitCode ?? child.signalCode}) before answering on port ${port}:\n` +
          output.join('\n'),
      );
    }
    if (await answers(endpoint)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `DynamoDB Local did not answer on ${endpoint} within the start timeout:\n${output.join('\n')}`,
      );
    }
    await sleep(200);
  }
  return { endpoint, port, pid: child.pid!, stop };
}

/** A port that was free on a loopback address (127.0.0.1 unless given) a moment ago. */
export function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** True once an HTTP server answers at all (DynamoDB Local answers an unsigned GET with an error status). */
function answers(endpoint: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(endpoint, { timeout: 1000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

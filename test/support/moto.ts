/**
 * Starts a real moto server (PyPI `moto[server]`) on a free loopback port for adapter tests.
 * Nothing is downloaded at run time: moto comes from the project's .venv (`npm test`'s pretest,
 * test/setup/ensure-tools.sh).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface MotoServer {
  endpoint: string;
  port: number;
  /** Credentials and region moto accepts (any values work; these are fixed so tests are explicit). */
  clientConfig: {
    endpoint: string;
    region: string;
    forcePathStyle: true;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  stop(): Promise<void>;
}

export const MOTO_INSTALL_HINT =
  'moto_server not found: `npm test` installs it (test/setup/ensure-tools.sh fills .venv)';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startMoto(options: { timeoutMs?: number; command?: string } = {}): Promise<MotoServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const command = options.command ?? process.env.MOTO_SERVER ?? 'moto_server';
  const child = spawn(command, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ENOENT' ? new Error(MOTO_INSTALL_HINT) : err),
    );
    child.once('exit', (code, signal) =>
      resolve(new Error(`moto_server exited early (code ${code}, signal ${signal}):\n${output}`)),
    );
  });

  const deadline = Date.now() + (options.timeoutMs ?? 20000);
  const ready = (async (): Promise<void> => {
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${endpoint}/moto-api/`);
        if (res.status < 500) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`moto_server did not answer on ${endpoint} within the timeout:\n${output}`);
  })();
  const first = await Promise.race([ready.then(() => undefined), exited]);
  if (first instanceof Error) {
    await stopChild(child);
    throw first;
  }
  return {
    endpoint,
    port,
    clientConfig: {
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    },
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(timer);
}

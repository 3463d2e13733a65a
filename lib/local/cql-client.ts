/**
 * One CQL question over a socket (lib/core/targets/nodes/cql-wire.ts frames): connect, STARTUP, QUERY, read the answer,
 * close (logging in first when the node asks, PasswordAuthenticator). The local mode's readiness probe and schema creation for cassandra-ec2 nodes; no driver.
 */
import { connect } from 'node:net';
import {
  HEADER_BYTES,
  authResponseFrame,
  parseFrame,
  queryFrame,
  readHeader,
  startupFrame,
  type ConsistencyName,
  type CqlResponse,
} from '../core/targets/nodes/cql-wire';

/** A node that asks for credentials refused the connection's (or none were given). */
export class CqlLoginError extends Error {}

/** Runs the statements in order on one connection; the answers in the same order. */
export async function cqlQuery(
  e: { host: string; port: number },
  statements: string[],
  opts: {
    consistency?: ConsistencyName;
    timeoutMs?: number;
    /** The login, for a node with PasswordAuthenticator (one that answers STARTUP with AUTHENTICATE). */
    credentials?: { username: string; password: string };
  } = {},
): Promise<CqlResponse[]> {
  const s = connect({ host: e.host, port: e.port });
  let buf = Buffer.alloc(0);
  let waiter: (() => void) | undefined;
  let failure: Error | undefined;
  s.on('data', (b: Buffer) => {
    buf = Buffer.concat([buf, b]);
    waiter?.();
  });
  s.on('error', (err) => {
    failure = err;
    waiter?.();
  });
  s.on('close', () => {
    failure ??= new Error('connection closed');
    waiter?.();
  });
  const timer = setTimeout(() => {
    failure = new Error(`no answer from ${e.host}:${e.port} within ${opts.timeoutMs ?? 5000} ms`);
    waiter?.();
  }, opts.timeoutMs ?? 5000);
  const next = async (): Promise<CqlResponse> => {
    for (;;) {
      if (buf.length >= HEADER_BYTES) {
        const total = HEADER_BYTES + readHeader(buf).length;
        if (buf.length >= total) {
          const r = parseFrame(buf.subarray(0, total));
          buf = buf.subarray(total);
          return r;
        }
      }
      if (failure) throw failure;
      await new Promise<void>((r) => (waiter = r));
      waiter = undefined;
    }
  };
  try {
    s.write(startupFrame());
    let ready = await next();
    if (ready.kind === 'authenticate') {
      if (!opts.credentials)
        throw new CqlLoginError(`${e.host}:${e.port} asks for credentials (${ready.authenticator})`);
      s.write(authResponseFrame(opts.credentials.username, opts.credentials.password));
      ready = await next();
      if (ready.kind !== 'auth_success')
        throw new CqlLoginError(`login as ${opts.credentials.username} refused: ${JSON.stringify(ready)}`);
    } else if (ready.kind !== 'ready') throw new Error(`STARTUP answered ${JSON.stringify(ready)}`);
    const out: CqlResponse[] = [];
    for (const q of statements) {
      s.write(queryFrame(q, opts.consistency ?? 'ONE'));
      out.push(await next());
    }
    return out;
  } finally {
    clearTimeout(timer);
    s.destroy();
  }
}

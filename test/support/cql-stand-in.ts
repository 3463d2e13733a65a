/**
 * A node that speaks just enough CQL v4 to answer fleetbench's readiness probe, with a release_version of
 * the test's choosing: STARTUP → READY (or, with a login, AUTHENTICATE and AUTH_RESPONSE as PasswordAuthenticator), `SELECT release_version FROM system.local` → a Rows result of one
 * varchar column; any other statement → an ERROR (0x2200, Invalid) naming it. It stands in for a node that
 * runs ANOTHER Apache Cassandra than the spec's (a real 5.0.6 node, started from the asset, is what the
 * twin's happy path probes); it records every statement it was asked. Frame layout: native_protocol_v4.spec
 * (https://github.com/apache/cassandra/blob/cassandra-5.0/doc/native_protocol_v4.spec), sections 2 and 4.
 */
import * as net from 'node:net';
import {
  CQL_VERSION_BYTE,
  HEADER_BYTES,
  OPCODE,
  RELEASE_VERSION_QUERY,
  frame,
} from '../../lib/core/targets/nodes/cql-wire';

const response = (stream: number, opcode: number, body: Buffer): Buffer => frame(stream, opcode, body, true);

const int = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const short = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const str = (s: string) => Buffer.concat([short(Buffer.byteLength(s)), Buffer.from(s, 'utf8')]);

/** RESULT Rows (kind 0x0002), global table spec system.local, one varchar (0x000D) column, one row. */
function releaseVersionRows(version: string): Buffer {
  const v = Buffer.from(version, 'utf8');
  return Buffer.concat([
    int(0x0002),
    int(0x0001), // flags: Global_tables_spec
    int(1),
    str('system'),
    str('local'),
    str('release_version'),
    short(0x000d),
    int(1),
    int(v.length),
    v,
  ]);
}

export interface CqlStandIn {
  port: number;
  /** Statements asked, in order. */
  asked: string[];
  close(): Promise<void>;
}

/** Starts the node on a free loopback port. */
export async function startCqlStandIn(o: {
  releaseVersion: string;
  /** As PasswordAuthenticator: STARTUP → AUTHENTICATE, then this login only (SASL PLAIN). */
  login?: { username: string; password: string };
}): Promise<CqlStandIn> {
  const asked: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let loggedIn = !o.login;
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= HEADER_BYTES) {
        const length = buf.readInt32BE(5);
        if (buf.length < HEADER_BYTES + length) return;
        const [version, stream, opcode] = [buf.readUInt8(0), buf.readInt16BE(2), buf.readUInt8(4)];
        const body = buf.subarray(HEADER_BYTES, HEADER_BYTES + length);
        buf = buf.subarray(HEADER_BYTES + length);
        if (version !== CQL_VERSION_BYTE) {
          // a protocol the node does not speak (section 8: ERROR 0x000A Protocol error)
          socket.write(response(stream, OPCODE.ERROR, Buffer.concat([int(0x000a), str('v4 only')])));
        } else if (opcode === OPCODE.STARTUP) {
          socket.write(
            o.login
              ? response(stream, OPCODE.AUTHENTICATE, str('org.apache.cassandra.auth.PasswordAuthenticator'))
              : response(stream, OPCODE.READY, Buffer.alloc(0)),
          );
        } else if (opcode === OPCODE.AUTH_RESPONSE && o.login) {
          const [, user, pass] = body.toString('utf8', 4, 4 + body.readInt32BE(0)).split('\0');
          loggedIn = user === o.login.username && pass === o.login.password;
          socket.write(
            loggedIn
              ? response(stream, OPCODE.AUTH_SUCCESS, int(-1))
              : response(
                  stream,
                  OPCODE.ERROR,
                  Buffer.concat([
                    int(0x0100),
                    str(`Provided username ${user} and/or password are incorrect`),
                  ]),
                ),
          );
        } else if (opcode === OPCODE.QUERY && !loggedIn) {
          socket.write(response(stream, OPCODE.ERROR, Buffer.concat([int(0x000a), str('not logged in')])));
        } else if (opcode === OPCODE.QUERY) {
          const cql = body.toString('utf8', 4, 4 + body.readInt32BE(0));
          asked.push(cql);
          socket.write(
            cql === RELEASE_VERSION_QUERY
              ? response(stream, OPCODE.RESULT, releaseVersionRows(o.releaseVersion))
              : response(stream, OPCODE.ERROR, Buffer.concat([int(0x2200), str(`not served here: ${cql}`)])),
          );
        } else {
          socket.write(
            response(stream, OPCODE.ERROR, Buffer.concat([int(0x000a), str(`opcode ${opcode} not served`)])),
          );
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    asked,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

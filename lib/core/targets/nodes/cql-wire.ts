/**
 * Just enough of the CQL native protocol, version 4, to ask a node a question without a driver, a JVM or
 * nodetool: STARTUP, AUTH_RESPONSE (PasswordAuthenticator's SASL PLAIN), QUERY (no bound values, no
 * paging), and the READY / AUTHENTICATE / AUTH_SUCCESS / ERROR / RESULT (Void, Rows) answers. The readiness probe of cassandra-ec2 nodes (`SELECT release_version FROM system.local`) and the
 * local mode's checks speak it. Pure: frames are built and read here, the socket is the caller's.
 *
 * Layout from the protocol specification, native_protocol_v4.spec
 * (https://github.com/apache/cassandra/blob/cassandra-5.0/doc/native_protocol_v4.spec): a 9-byte header
 * (version, flags, stream id, opcode, body length), then the body.
 */

export const CQL_VERSION_BYTE = 0x04;
const RESPONSE_BIT = 0x80;
export const OPCODE = {
  ERROR: 0x00,
  STARTUP: 0x01,
  READY: 0x02,
  AUTHENTICATE: 0x03,
  QUERY: 0x07,
  RESULT: 0x08,
  AUTH_RESPONSE: 0x0f,
  AUTH_SUCCESS: 0x10,
} as const;

/** ERROR code of a login refused (section 9: Bad credentials). */
export const BAD_CREDENTIALS = 0x0100;

/**
 * The login Apache Cassandra creates on its first start with PasswordAuthenticator (`cassandra` /
 * `cassandra`, no option to skip it): public knowledge, used only to tell a node that asks for credentials
 * is up, and to create a run's own role once (after which it no longer logs in).
 */
export const DEFAULT_SUPERUSER = { username: 'cassandra', password: 'cassandra' } as const;
export const HEADER_BYTES = 9;

/** Consistency levels by name (section 3, [consistency]). */
export const CONSISTENCY = {
  ANY: 0x0000,
  ONE: 0x0001,
  TWO: 0x0002,
  THREE: 0x0003,
  QUORUM: 0x0004,
  ALL: 0x0005,
  LOCAL_QUORUM: 0x0006,
  EACH_QUORUM: 0x0007,
  LOCAL_ONE: 0x000a,
} as const;
export type ConsistencyName = keyof typeof CONSISTENCY;

/** A v4 frame: a request, or (with `response`) the answer a node sends, as the test stand-ins do. */
export function frame(stream: number, opcode: number, body: Buffer, response = false): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  h.writeUInt8(response ? RESPONSE_BIT | CQL_VERSION_BYTE : CQL_VERSION_BYTE, 0);
  h.writeUInt8(0, 1);
  h.writeInt16BE(stream, 2);
  h.writeUInt8(opcode, 4);
  h.writeInt32BE(body.length, 5);
  return Buffer.concat([h, body]);
}

const shortString = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  const n = Buffer.alloc(2);
  n.writeUInt16BE(b.length);
  return Buffer.concat([n, b]);
};

/** STARTUP with CQL_VERSION 3.0.0 and no compression. */
export function startupFrame(stream = 0): Buffer {
  const n = Buffer.alloc(2);
  n.writeUInt16BE(1);
  return frame(stream, OPCODE.STARTUP, Buffer.concat([n, shortString('CQL_VERSION'), shortString('3.0.0')]));
}

/**
 * AUTH_RESPONSE for PasswordAuthenticator: a [bytes] SASL PLAIN token, NUL user NUL password (what the
 * drivers' plain-text auth providers send).
 */
export function authResponseFrame(username: string, password: string, stream = 0): Buffer {
  const token = Buffer.from(`\0${username}\0${password}`, 'utf8');
  const n = Buffer.alloc(4);
  n.writeInt32BE(token.length);
  return frame(stream, OPCODE.AUTH_RESPONSE, Buffer.concat([n, token]));
}

/** QUERY of one statement without values, at a consistency level. */
export function queryFrame(cql: string, consistency: ConsistencyName = 'ONE', stream = 1): Buffer {
  const q = Buffer.from(cql, 'utf8');
  const body = Buffer.alloc(4 + q.length + 3);
  body.writeInt32BE(q.length, 0);
  q.copy(body, 4);
  body.writeUInt16BE(CONSISTENCY[consistency], 4 + q.length);
  body.writeUInt8(0, 6 + q.length); // no flags: no values, no paging, no serial consistency
  return frame(stream, OPCODE.QUERY, body);
}

export interface FrameHeader {
  version: number;
  stream: number;
  opcode: number;
  length: number;
}

/** The header of a response frame; throws when the bytes are not one. */
export function readHeader(buf: Buffer): FrameHeader {
  if (buf.length < HEADER_BYTES) throw new Error(`a CQL frame header has 9 bytes, found ${buf.length}`);
  const version = buf.readUInt8(0);
  if (version !== (CQL_VERSION_BYTE | RESPONSE_BIT)) {
    throw new Error(`not a CQL v4 response: version byte 0x${version.toString(16)}`);
  }
  return { version, stream: buf.readInt16BE(2), opcode: buf.readUInt8(4), length: buf.readInt32BE(5) };
}

/** What a response says. */
export type CqlResponse =
  | { kind: 'ready' }
  | { kind: 'authenticate'; authenticator: string }
  | { kind: 'auth_success' }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'void' }
  | { kind: 'rows'; columns: string[]; rows: (string | null)[][] }
  | { kind: 'other'; opcode: number; resultKind?: number };

class Reader {
  private at = 0;
  constructor(private readonly b: Buffer) {}
  int(): number {
    const v = this.b.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  short(): number {
    const v = this.b.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }
  string(): string {
    const n = this.short();
    const s = this.b.toString('utf8', this.at, this.at + n);
    this.at += n;
    return s;
  }
  bytes(): Buffer | null {
    const n = this.int();
    if (n < 0) return null;
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  /** An [option] type; returns its id after skipping any sub-types. */
  type(): number {
    const id = this.short();
    if (id === 0x0000)
      this.string(); // custom: class name
    else if (id === 0x0020 || id === 0x0022)
      this.type(); // list, set
    else if (id === 0x0021) {
      this.type();
      this.type();
    } else if (id === 0x0030) {
      this.string();
      this.string();
      const n = this.short();
      for (let i = 0; i < n; i++) {
        this.string();
        this.type();
      }
    } else if (id === 0x0031) {
      const n = this.short();
      for (let i = 0; i < n; i++) this.type();
    }
    return id;
  }
}

/** A cell as text: strings as they are, inet as an address, int/bigint as decimal, anything else as hex. */
function cellText(type: number, v: Buffer): string {
  switch (type) {
    case 0x0001: // ascii
    case 0x000d: // varchar
      return v.toString('utf8');
    case 0x0009: // int
      return String(v.readInt32BE(0));
    case 0x0002: // bigint
      return v.readBigInt64BE(0).toString();
    case 0x0010: // inet
      return v.length === 4 ? [...v].join('.') : (v.toString('hex').match(/.{4}/g) ?? []).join(':');
    default:
      return v.toString('hex');
  }
}

/** Reads a response body by its header's opcode. */
export function parseResponse(header: FrameHeader, body: Buffer): CqlResponse {
  if (header.opcode === OPCODE.READY) return { kind: 'ready' };
  if (header.opcode === OPCODE.AUTH_SUCCESS) return { kind: 'auth_success' };
  const r = new Reader(body);
  if (header.opcode === OPCODE.AUTHENTICATE) return { kind: 'authenticate', authenticator: r.string() };
  if (header.opcode === OPCODE.ERROR) return { kind: 'error', code: r.int(), message: r.string() };
  if (header.opcode !== OPCODE.RESULT) return { kind: 'other', opcode: header.opcode };
  const resultKind = r.int();
  if (resultKind === 0x0001) return { kind: 'void' };
  if (resultKind !== 0x0002) return { kind: 'other', opcode: header.opcode, resultKind };
  const flags = r.int();
  const count = r.int();
  if (flags & 0x0002) r.bytes(); // paging state
  if (flags & 0x0004) throw new Error('a Rows result without metadata (not asked for)');
  const global = (flags & 0x0001) !== 0;
  if (global) {
    r.string();
    r.string();
  }
  const columns: string[] = [];
  const types: number[] = [];
  for (let i = 0; i < count; i++) {
    if (!global) {
      r.string();
      r.string();
    }
    columns.push(r.string());
    types.push(r.type());
  }
  const n = r.int();
  const rows: (string | null)[][] = [];
  for (let i = 0; i < n; i++) {
    rows.push(
      types.map((t) => {
        const v = r.bytes();
        return v === null ? null : cellText(t, v);
      }),
    );
  }
  return { kind: 'rows', columns, rows };
}

/** Reads one whole response frame (header + body). */
export function parseFrame(buf: Buffer): CqlResponse {
  const h = readHeader(buf);
  if (buf.length < HEADER_BYTES + h.length) {
    throw new Error(`a CQL frame of ${HEADER_BYTES + h.length} bytes, found ${buf.length}`);
  }
  return parseResponse(h, buf.subarray(HEADER_BYTES, HEADER_BYTES + h.length));
}

/** The readiness question a node answers once it serves CQL. */
export const RELEASE_VERSION_QUERY = 'SELECT release_version FROM system.local';

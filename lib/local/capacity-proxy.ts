/**
 * The local capacity emulator: a loopback HTTP proxy in front of DynamoDB Local that applies the
 * DynamoDB capacity model (lib/core/dynamodb-model/emulator.ts) to the real requests. A request over
 * a limit is answered as DynamoDB answers it — HTTP 400, `application/x-amz-json-1.0`, body
 * `{"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "message": …}`
 * (provisioned) or `ThrottlingException` (on-demand), with `ThrottlingReasons` — and never reaches
 * DynamoDB Local; everything else is forwarded unchanged. ConsumedCapacity is DynamoDB Local's own.
 * Modelled: GetItem, PutItem, UpdateItem, DeleteItem on the tables it is told about, once armed (the
 * load phase is not throttled). Scan, Query and batch calls pass through.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
 */
import * as http from 'node:http';
import { forwardHttp } from './http-forward';
import type { AddressInfo } from 'node:net';
import { TableCapacity, type EmulatorCounters, type TableModel } from '../core/dynamodb-model';
import {
  itemSizeBytes,
  readUnitsPerRead,
  writeUnitsPerWrite,
  type AttributeValue,
} from '../core/cost/capacity';

export interface EmulatedTable {
  model: TableModel;
  keyAttribute: string;
}

export interface CapacityProxy {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** Starts throttling; every table gets a fresh (idle) capacity state now. Called at each cell's start. */
  arm(): void;
  /** Adds (or replaces) a table the proxy models. */
  setTable(name: string, table: EmulatedTable): void;
  counters(name: string): EmulatorCounters | undefined;
  stop(): Promise<void>;
}

type Wire = Record<string, unknown>;

/** A DynamoDB-JSON attribute value ({S: "x"}, {N: "1"}, …) as the plain value the size rule takes. */
function plain(v: Wire): AttributeValue {
  if ('S' in v) return String(v.S);
  if ('N' in v) return Number(v.N);
  if ('B' in v) return Buffer.from(String(v.B), 'base64');
  if ('BOOL' in v) return Boolean(v.BOOL);
  if ('NULL' in v) return null;
  if ('L' in v) return (v.L as Wire[]).map(plain);
  if ('M' in v)
    return Object.fromEntries(Object.entries(v.M as Record<string, Wire>).map(([k, x]) => [k, plain(x)]));
  if ('SS' in v) return v.SS as string[];
  if ('NS' in v) return (v.NS as string[]).map(Number);
  if ('BS' in v) return (v.BS as string[]).map((b) => Buffer.from(b, 'base64'));
  return null;
}

const MODELLED = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']);

/** The key, direction and units of a modelled request, or null to pass it through. */
function demandOf(
  op: string,
  body: Wire,
  t: EmulatedTable,
): { key: string; dir: 'read' | 'write'; units: number } | null {
  const keyObj = (op === 'PutItem' ? body.Item : body.Key) as Record<string, Wire> | undefined;
  const keyValue = keyObj?.[t.keyAttribute];
  if (!keyValue) return null;
  const key = JSON.stringify(keyValue);
  if (op === 'GetItem') {
    const consistency = body.ConsistentRead === true ? 'strong' : 'eventual';
    return { key, dir: 'read', units: readUnitsPerRead(t.model.itemBytes, consistency) };
  }
  // a write consumes the larger of the item before and after (CapacityUnitCalculations.html): the
  // table's items are the model's size; a PutItem may bring a bigger one
  let bytes = t.model.itemBytes;
  if (op === 'PutItem' && body.Item) {
    const item = Object.fromEntries(
      Object.entries(body.Item as Record<string, Wire>).map(([k, v]) => [k, plain(v)]),
    );
    bytes = Math.max(bytes, itemSizeBytes(item));
  }
  return { key, dir: 'write', units: writeUnitsPerWrite(bytes) };
}

export async function startCapacityProxy(o: {
  upstream: string;
  now?: () => number;
}): Promise<CapacityProxy> {
  const now = o.now ?? (() => Date.now());
  const upstream = new URL(o.upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const tables = new Map<string, EmulatedTable>();
  const state = new Map<string, TableCapacity>();
  let armed = false;
  let requestId = 0;

  const forward = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => {
    forwardHttp(upstream, agent, req, res, `capacity proxy: upstream ${o.upstream}`).end(body);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const op = String(req.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');
      if (armed && MODELLED.has(op)) {
        let parsed: Wire | null = null;
        try {
          parsed = JSON.parse(body.toString('utf8')) as Wire;
        } catch {
          parsed = null; // DynamoDB Local answers the malformed request itself
        }
        const name = parsed ? String(parsed.TableName ?? '') : '';
        const t = tables.get(name);
        const cap = state.get(name);
        const d = parsed && t ? demandOf(op, parsed, t) : null;
        const throttle = d && cap ? cap.request(d.key, d.dir, d.units, now()) : null;
        if (throttle) {
          const payload = JSON.stringify({
            __type: `com.amazonaws.dynamodb.v20120810#${throttle.code}`,
            message: throttle.message,
            ThrottlingReasons: [
              { reason: throttle.reason, resource: `arn:aws:dynamodb:local:000000000000:table/${name}` },
            ],
          });
          res.writeHead(400, {
            'content-type': 'application/x-amz-json-1.0',
            'content-length': Buffer.byteLength(payload),
            'x-amzn-requestid': `fleetbench-capacity-${++requestId}`,
          });
          res.end(payload);
          return;
        }
      }
      forward(req, body, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    arm() {
      armed = true;
      for (const [name, t] of tables) state.set(name, new TableCapacity(t.model, now()));
    },
    setTable(name, t) {
      tables.set(name, t);
      if (armed) state.set(name, new TableCapacity(t.model, now()));
    },
    counters: (name) => state.get(name)?.counters,
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

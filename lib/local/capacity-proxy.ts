/**
 * The local capacity emulator: a loopback HTTP proxy in front of DynamoDB Local that applies the
 * DynamoDB capacity model (lib/core/dynamodb-model/emulator.ts) to the real requests. A request over
 * a limit is answered as DynamoDB answers it — HTTP 400, `application/x-amz-json-1.0`, body
 * `{"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "message": …}`
 * (provisioned) or `ThrottlingException` (on-demand), with `ThrottlingReasons` — and never reaches
 * DynamoDB Local; everything else is forwarded unchanged. ConsumedCapacity is DynamoDB Local's own.
 * Modelled: GetItem, PutItem, UpdateItem, DeleteItem and Query on the tables it is told about, once armed (the
 * load phase is not throttled). Scan and batch calls pass through. A composite-key table's requests are placed
 * by their partition-key value and sort key (a Query by its partition-key value and the sort-key bound of its
 * key condition). A Query is admitted or throttled before it is sent; once DynamoDB Local answered, it is charged
 * by the contract's rule: read units for the total size of the items it returned (Count × the table's item size),
 * rounded up to 4 KB once, not per item, half for eventually consistent reads, at least 0.5 / 1 unit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
 */
import * as http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { forwardHttp } from './http-forward';
import type { AddressInfo } from 'node:net';
import {
  TableCapacity,
  type CapacitySecond,
  type EmulatorCounters,
  type ItemKey,
  type TableModel,
  type Throttle,
} from '../core/dynamodb-model';
import {
  itemSizeBytes,
  readUnitsPerRead,
  writeUnitsPerWrite,
  type AttributeValue,
} from '../core/cost/capacity';

export interface EmulatedTable {
  model: TableModel;
  keyAttribute: string;
  /** A composite-key table (keyDesign with N partition-key values): its sort key attribute. */
  compositeKey?: { partitionKeyValues: number; sortKeyAttribute: string } | null;
}

export interface CapacityProxy {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /**
   * Starts throttling; every table (or those named: a cell's own, so that targets run side by side do not reset
   * each other's) gets a fresh (idle) capacity state now. Called at each cell's start.
   */
  arm(only?: readonly string[]): void;
  /** Adds (or replaces) a table the proxy models. */
  setTable(name: string, table: EmulatedTable): void;
  counters(name: string): EmulatorCounters | undefined;
  /** Each modelled table's (or those named) seconds since its last `arm` (what the local run stores as the cell's capacity rows). */
  series(only?: readonly string[]): { name: string; startedAtMs: number; seconds: CapacitySecond[] }[];
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

const MODELLED = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query']);

interface Demand {
  key: ItemKey;
  dir: 'read' | 'write';
  units: number;
  /** a Query: charged after DynamoDB Local answered, by the items it returned */
  query?: { consistency: 'strong' | 'eventual' };
}

/** An attribute value's text as the sort-key order sees it (S and N as they are). */
function sortText(v: Wire | undefined): string | undefined {
  if (!v) return undefined;
  const p = plain(v);
  return typeof p === 'string' || typeof p === 'number' ? String(p) : JSON.stringify(v);
}

/**
 * A Query's partition-key value and sort-key bound from its KeyConditionExpression (`#a = :a AND #b <= :b`,
 * names direct or through ExpressionAttributeNames; BETWEEN and begins_with give their first value).
 */
function queryKey(body: Wire, t: EmulatedTable): ItemKey | null {
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (body.ExpressionAttributeValues ?? {}) as Record<string, Wire>;
  const nameOf = (n: string) => (n.startsWith('#') ? names[n] : n);
  let hash: Wire | undefined;
  let sort: Wire | undefined;
  for (const clause of String(body.KeyConditionExpression ?? '').split(/\s+AND\s+(?![^(]*\))/i)) {
    const m =
      /^\s*\(?\s*([#\w.-]+)\s*(=|<=|<|>=|>|BETWEEN)\s*(:[\w-]+)/i.exec(clause) ??
      /^\s*begins_with\s*\(\s*([#\w.-]+)\s*,\s*(:[\w-]+)/i.exec(clause);
    if (!m) continue;
    const attr = nameOf(m[1]!);
    const value = values[m[3] ?? m[2]!];
    if (attr === t.keyAttribute && m[2] === '=') hash = value;
    else if (attr === t.compositeKey?.sortKeyAttribute) sort = value;
  }
  if (!hash) return null;
  if (!t.compositeKey) return { hashKey: JSON.stringify(hash) };
  return { hashKey: sortText(hash)!, sortKey: sortText(sort) ?? '' };
}

/** The item key of a GetItem/PutItem/UpdateItem/DeleteItem. */
function itemKey(op: string, body: Wire, t: EmulatedTable): ItemKey | null {
  const keyObj = (op === 'PutItem' ? body.Item : body.Key) as Record<string, Wire> | undefined;
  const keyValue = keyObj?.[t.keyAttribute];
  if (!keyValue) return null;
  if (!t.compositeKey) return { hashKey: JSON.stringify(keyValue) };
  // a composite key's item collection is placed by its value as written (pk<r>), as the model can name it
  return { hashKey: sortText(keyValue)!, sortKey: sortText(keyObj[t.compositeKey.sortKeyAttribute]) ?? '' };
}

/** The key, direction and units of a modelled request, or null to pass it through. */
function demandOf(op: string, body: Wire, t: EmulatedTable): Demand | null {
  const consistency = body.ConsistentRead === true ? 'strong' : 'eventual';
  if (op === 'Query') {
    const key = queryKey(body, t);
    if (!key) return null;
    // the recent-traffic estimate (which items are hot) until the answer says what was read
    const limit = typeof body.Limit === 'number' && body.Limit > 0 ? body.Limit : 1;
    const units = readUnitsPerRead(limit * t.model.itemBytes, consistency);
    return { key, dir: 'read', units, query: { consistency } };
  }
  const key = itemKey(op, body, t);
  if (!key) return null;
  if (op === 'GetItem') return { key, dir: 'read', units: readUnitsPerRead(t.model.itemBytes, consistency) };
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

/**
 * Read units of a Query that returned `count` items of the table's size: the total rounded up to 4 KB once,
 * half when eventually consistent, at least one 4 KB block (0.5 / 1 unit) when nothing came back.
 */
export function queryReadUnits(count: number, itemBytes: number, consistency: 'strong' | 'eventual'): number {
  return readUnitsPerRead(Math.max(1, count * itemBytes), consistency);
}

/** The Count of a Query's answer (its body, gzip or not); 0 when it is not a Query result. */
function answeredCount(body: Buffer, encoding: string | undefined): number {
  try {
    const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
    const n = (JSON.parse(text) as Wire).Count;
    return typeof n === 'number' ? n : 0;
  } catch {
    return 0;
  }
}

/** Forwards the request; with `answered`, also hands over the upstream's answer once it has been passed on. */
function forwardTeeing(
  to: { upstream: URL; agent: http.Agent; label: string },
  req: http.IncomingMessage,
  body: Buffer,
  res: http.ServerResponse,
  answered?: (status: number, body: Buffer, encoding: string | undefined) => void,
): void {
  const up = forwardHttp(to.upstream, to.agent, req, res, to.label);
  if (answered)
    up.on('response', (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => answered(r.statusCode ?? 0, Buffer.concat(chunks), r.headers['content-encoding']));
    });
  up.end(body);
}

/** DynamoDB's throttling answer: HTTP 400 with its error type, message and ThrottlingReasons. */
function answerThrottle(
  res: http.ServerResponse,
  throttle: Throttle,
  table: string,
  requestId: number,
): void {
  const payload = JSON.stringify({
    __type: `com.amazonaws.dynamodb.v20120810#${throttle.code}`,
    message: throttle.message,
    ThrottlingReasons: [
      { reason: throttle.reason, resource: `arn:aws:dynamodb:local:000000000000:table/${table}` },
    ],
  });
  res.writeHead(400, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': `fleetbench-capacity-${requestId}`,
  });
  res.end(payload);
}

export async function startCapacityProxy(o: {
  upstream: string;
  now?: () => number;
  /** The emulator's time scale (lib/core/dynamodb-model/emulator.ts): absent, real durations and instant isolation. */
  timeScale?: number;
}): Promise<CapacityProxy> {
  const now = o.now ?? (() => Date.now());
  const upstream = new URL(o.upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const tables = new Map<string, EmulatedTable>();
  const state = new Map<string, TableCapacity>();
  let armed = false;
  let requestId = 0;

  const forward = (
    req: http.IncomingMessage,
    body: Buffer,
    res: http.ServerResponse,
    answered?: (status: number, body: Buffer, encoding: string | undefined) => void,
  ) =>
    forwardTeeing(
      { upstream, agent, label: `capacity proxy: upstream ${o.upstream}` },
      req,
      body,
      res,
      answered,
    );
  const capacity = (model: TableModel) =>
    new TableCapacity(model, now(), o.timeScale !== undefined ? { timeScale: o.timeScale } : {});

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
        const throttle = d && cap ? cap.check(d.key, d.dir, d.units, now()) : null;
        if (throttle) {
          answerThrottle(res, throttle, name, ++requestId);
          return;
        }
        if (d && cap && t && d.query) {
          const { consistency } = d.query;
          forward(req, body, res, (status, answer, encoding) => {
            if (status === 200)
              cap.charge(
                d.key,
                'read',
                queryReadUnits(answeredCount(answer, encoding), t.model.itemBytes, consistency),
                now(),
              );
          });
          return;
        }
        if (d && cap) cap.charge(d.key, d.dir, d.units, now());
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
    arm(only) {
      armed = true;
      for (const [name, t] of tables) if (!only || only.includes(name)) state.set(name, capacity(t.model));
    },
    setTable(name, t) {
      tables.set(name, t);
      if (armed) state.set(name, capacity(t.model));
    },
    counters: (name) => state.get(name)?.counters,
    series: (only) =>
      [...state]
        .filter(([name]) => !only || only.includes(name))
        .map(([name, cap]) => ({ name, startedAtMs: cap.startedAtMs, seconds: cap.series() })),
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

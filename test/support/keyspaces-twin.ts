/**
 * No emulator serves Amazon Keyspaces' control plane (moto 5.2 has no keyspaces backend; DynamoDB Local and
 * Cassandra do not speak it). This loopback endpoint answers the calls lib/aws/keyspaces-admin.ts makes as the
 * Keyspaces API reference documents them (https://docs.aws.amazon.com/keyspaces/latest/APIReference/):
 * awsJson1_0 with target `KeyspacesService.<op>`, ConflictException for an existing keyspace or table,
 * ResourceNotFoundException for a missing one, DeleteKeyspace taking its tables. Creation is asynchronous as on
 * AWS: a new keyspace is not found (GetKeyspace, CreateTable in it) for `creatingPolls` GetKeyspace calls; a new
 * table is CREATING for `creatingPolls` GetTable calls, then ACTIVE; UpdateTable is refused unless the table is
 * ACTIVE and leaves it UPDATING as long. CreateTable validates the schema and the capacity specification
 * (ValidationException), and ListTagsForResource answers per resource ARN (keyspace or table). `settle()` makes
 * everything ready at once (a fixture created outside the code under test). It records every request as the SDK
 * serialised it, which is what the tests check.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Table {
  status: string;
  /** GetTable calls left before a CREATING or UPDATING table is ACTIVE. */
  polls: number;
  request: Record<string, unknown>;
}

interface Keyspace {
  tags: { key: string; value: string }[];
  tables: Map<string, Table>;
  /** GetKeyspace calls left before the keyspace is created. */
  pending: number;
}

export interface KeyspacesTwin {
  endpoint: string;
  calls: { op: string; body: Record<string, unknown> }[];
  keyspaces: Map<string, Keyspace>;
  /** Every keyspace created and every table ACTIVE now. */
  settle(): void;
  stop(): Promise<void>;
}

const ARN = 'arn:aws:cassandra:us-east-1:123456789012:/keyspace/';
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,47}$/;
const CQL_TYPES = new Set([
  'ascii',
  'bigint',
  'blob',
  'boolean',
  'date',
  'decimal',
  'double',
  'float',
  'int',
]);
for (const t of [
  'inet',
  'smallint',
  'text',
  'time',
  'timestamp',
  'timeuuid',
  'tinyint',
  'uuid',
  'varchar',
  'varint',
])
  CQL_TYPES.add(t);

/** What CreateTable's ValidationException would say about the request (null: valid). */
function createTableProblem(b: Record<string, unknown>): string | null {
  if (!NAME.test(String(b.tableName))) return `tableName ${String(b.tableName)} must match ${NAME.source}`;
  const schema = b.schemaDefinition as
    { allColumns?: { name: string; type: string }[]; partitionKeys?: { name: string }[] } | undefined;
  const cols = schema?.allColumns ?? [];
  if (!cols.length) return 'schemaDefinition.allColumns must name at least one column';
  for (const c of cols)
    if (!NAME.test(c.name) || !CQL_TYPES.has(c.type))
      return `column ${c.name} of type ${c.type} is not valid`;
  const keys = schema?.partitionKeys ?? [];
  if (!keys.length) return 'schemaDefinition.partitionKeys must name at least one column';
  for (const k of keys)
    if (!cols.some((c) => c.name === k.name)) return `partition key ${k.name} is not among allColumns`;
  return capacityProblem(b.capacitySpecification as Record<string, unknown> | undefined);
}

function capacityProblem(c: Record<string, unknown> | undefined): string | null {
  if (!c) return null; // on-demand by default
  const units = [c.readCapacityUnits, c.writeCapacityUnits];
  if (c.throughputMode === 'PAY_PER_REQUEST')
    return units.some((u) => u !== undefined) ? 'PAY_PER_REQUEST takes no capacity units' : null;
  if (c.throughputMode !== 'PROVISIONED') return `throughputMode ${String(c.throughputMode)} is not valid`;
  return units.every((u) => Number.isInteger(u) && (u as number) >= 1)
    ? null
    : 'PROVISIONED needs readCapacityUnits and writeCapacityUnits ≥ 1';
}

const fault = (type: string, message: string) => ({ status: 400, json: { __type: type, message } });
const ok = (json: unknown) => ({ status: 200, json });
const tableArn = (ks: string, t: string) => `${ARN}${ks}/table/${t}`;

/** The tags of the keyspace (`…/keyspace/<ks>/`) or table (`…/keyspace/<ks>/table/<t>`) the ARN names. */
function tagsOf(keyspaces: Map<string, Keyspace>, arn: string): { status: number; json: unknown } {
  const m = /^([^/]+)\/(?:table\/([^/]+))?$/.exec(arn.startsWith(ARN) ? arn.slice(ARN.length) : '');
  const k = m ? keyspaces.get(m[1]!) : undefined;
  const found = k && k.pending === 0 ? (m![2] === undefined ? k : k.tables.get(m![2])) : undefined;
  if (!found) return fault('ResourceNotFoundException', `${arn} not found`);
  const tags = 'request' in found ? ((found.request.tags as Keyspace['tags'] | undefined) ?? []) : found.tags;
  return ok({ tags });
}

function settle(keyspaces: Map<string, Keyspace>): void {
  for (const k of keyspaces.values()) {
    k.pending = 0;
    for (const t of k.tables.values()) {
      t.status = 'ACTIVE';
      t.polls = 0;
    }
  }
}

/** One Keyspaces API call against the keyspaces the twin holds. */
function answer(
  keyspaces: Map<string, Keyspace>,
  creatingPolls: number,
  op: string,
  b: Record<string, unknown>,
): { status: number; json: unknown } {
  const ks = b.keyspaceName as string;
  const k = keyspaces.get(ks);
  const ready = k && k.pending === 0 ? k : undefined;
  const notFound = () => fault('ResourceNotFoundException', `Keyspace ${ks} not found`);
  switch (op) {
    case 'CreateKeyspace':
      if (k) return fault('ConflictException', `Keyspace ${ks} already exists`);
      keyspaces.set(ks, {
        tags: (b.tags as { key: string; value: string }[]) ?? [],
        tables: new Map(),
        pending: creatingPolls,
      });
      return ok({ resourceArn: `${ARN}${ks}/` });
    case 'GetKeyspace':
      if (k && k.pending > 0) k.pending--;
      if (!ready) return notFound();
      return ok({ keyspaceName: ks, resourceArn: `${ARN}${ks}/`, replicationStrategy: 'SINGLE_REGION' });
    case 'CreateTable': {
      if (!ready) return notFound();
      const t = b.tableName as string;
      if (ready.tables.has(t)) return fault('ConflictException', `Table ${ks}.${t} already exists`);
      const problem = createTableProblem(b);
      if (problem) return fault('ValidationException', `CreateTable ${ks}.${t}: ${problem}`);
      ready.tables.set(t, { status: 'CREATING', polls: creatingPolls, request: b });
      return ok({ resourceArn: tableArn(ks, t) });
    }
    case 'GetTable': {
      const t = ready?.tables.get(b.tableName as string);
      if (!t) return fault('ResourceNotFoundException', `Table ${ks}.${String(b.tableName)} not found`);
      const answerStatus = t.status;
      if (t.polls > 0 && --t.polls === 0) t.status = 'ACTIVE'; // asynchronous: ACTIVE after a few polls
      const cap = t.request.capacitySpecification as Record<string, unknown>;
      return ok({
        keyspaceName: ks,
        tableName: b.tableName,
        resourceArn: tableArn(ks, String(b.tableName)),
        status: answerStatus,
        schemaDefinition: t.request.schemaDefinition,
        capacitySpecification: { ...cap, lastUpdateToPayPerRequestTimestamp: undefined },
      });
    }
    case 'UpdateTable': {
      const t = ready?.tables.get(b.tableName as string);
      if (!t) return fault('ResourceNotFoundException', `Table ${ks}.${String(b.tableName)} not found`);
      if (t.status !== 'ACTIVE')
        return fault('ValidationException', `Table ${ks}.${String(b.tableName)} is ${t.status}, not ACTIVE`);
      const problem = capacityProblem(b.capacitySpecification as Record<string, unknown>);
      if (problem) return fault('ValidationException', `UpdateTable: ${problem}`);
      t.request = { ...t.request, capacitySpecification: b.capacitySpecification };
      t.status = 'UPDATING';
      t.polls = creatingPolls;
      return ok({ resourceArn: tableArn(ks, String(b.tableName)) });
    }
    case 'DeleteKeyspace':
      if (!ready) return notFound();
      keyspaces.delete(ks);
      return ok({});
    case 'ListKeyspaces':
      return ok({
        keyspaces: [
          { keyspaceName: 'system', resourceArn: `${ARN}system/`, replicationStrategy: 'SINGLE_REGION' },
          ...[...keyspaces.entries()]
            .filter(([, kk]) => kk.pending === 0)
            .map(([name]) => ({
              keyspaceName: name,
              resourceArn: `${ARN}${name}/`,
              replicationStrategy: 'SINGLE_REGION',
            })),
        ],
      });
    case 'ListTagsForResource':
      return tagsOf(keyspaces, String(b.resourceArn));
    default:
      return fault('UnknownOperationException', `${op} is not answered by the test endpoint`);
  }
}

export async function startKeyspacesTwin(options: { creatingPolls?: number } = {}): Promise<KeyspacesTwin> {
  const creatingPolls = options.creatingPolls ?? 2;
  const calls: KeyspacesTwin['calls'] = [];
  const keyspaces: KeyspacesTwin['keyspaces'] = new Map();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const op = target.replace(/^KeyspacesService\./, '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      calls.push({ op, body });
      const a = answer(keyspaces, creatingPolls, op, body);
      res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(a.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    keyspaces,
    settle: () => settle(keyspaces),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * No emulator serves Amazon Keyspaces' control plane (moto 5.2 has no keyspaces backend; DynamoDB Local and
 * Cassandra do not speak it). This loopback endpoint answers the calls lib/aws/keyspaces-admin.ts makes as the
 * Keyspaces API reference documents them (https://docs.aws.amazon.com/keyspaces/latest/APIReference/):
 * awsJson1_0 with target `KeyspacesService.<op>`, ConflictException for an existing keyspace or table,
 * ResourceNotFoundException for a missing one, a new table CREATING then ACTIVE (UpdateTable: UPDATING, then
 * ACTIVE, with the new capacity), DeleteKeyspace taking its
 * tables. It records every request as the SDK serialised it, which is what the tests check.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Table {
  status: string;
  request: Record<string, unknown>;
}

export interface KeyspacesTwin {
  endpoint: string;
  calls: { op: string; body: Record<string, unknown> }[];
  keyspaces: Map<string, { tags: { key: string; value: string }[]; tables: Map<string, Table> }>;
  stop(): Promise<void>;
}

const ARN = 'arn:aws:cassandra:us-east-1:123456789012:/keyspace/';

export async function startKeyspacesTwin(): Promise<KeyspacesTwin> {
  const calls: KeyspacesTwin['calls'] = [];
  const keyspaces: KeyspacesTwin['keyspaces'] = new Map();
  const fault = (type: string, message: string) => ({ status: 400, json: { __type: type, message } });
  const ok = (json: unknown) => ({ status: 200, json });

  function answer(op: string, b: Record<string, unknown>): { status: number; json: unknown } {
    const ks = b.keyspaceName as string;
    const k = keyspaces.get(ks);
    switch (op) {
      case 'CreateKeyspace':
        if (k) return fault('ConflictException', `Keyspace ${ks} already exists`);
        keyspaces.set(ks, { tags: (b.tags as { key: string; value: string }[]) ?? [], tables: new Map() });
        return ok({ resourceArn: `${ARN}${ks}/` });
      case 'GetKeyspace':
        if (!k) return fault('ResourceNotFoundException', `Keyspace ${ks} not found`);
        return ok({ keyspaceName: ks, resourceArn: `${ARN}${ks}/`, replicationStrategy: 'SINGLE_REGION' });
      case 'CreateTable': {
        if (!k) return fault('ResourceNotFoundException', `Keyspace ${ks} not found`);
        const t = b.tableName as string;
        if (k.tables.has(t)) return fault('ConflictException', `Table ${ks}.${t} already exists`);
        k.tables.set(t, { status: 'CREATING', request: b });
        return ok({ resourceArn: `${ARN}${ks}/table/${t}` });
      }
      case 'GetTable': {
        const t = k?.tables.get(b.tableName as string);
        if (!t) return fault('ResourceNotFoundException', `Table ${ks}.${String(b.tableName)} not found`);
        const answerStatus = t.status;
        t.status = 'ACTIVE'; // created or updated asynchronously: the next GetTable sees it active
        const cap = t.request.capacitySpecification as Record<string, unknown>;
        return ok({
          keyspaceName: ks,
          tableName: b.tableName,
          resourceArn: `${ARN}${ks}/table/${String(b.tableName)}`,
          status: answerStatus,
          schemaDefinition: t.request.schemaDefinition,
          capacitySpecification: { ...cap, lastUpdateToPayPerRequestTimestamp: undefined },
        });
      }
      case 'UpdateTable': {
        // UpdateTable: the table takes the new capacity and is UPDATING until the next GetTable
        const t = k?.tables.get(b.tableName as string);
        if (!t) return fault('ResourceNotFoundException', `Table ${ks}.${String(b.tableName)} not found`);
        t.request = { ...t.request, capacitySpecification: b.capacitySpecification };
        t.status = 'UPDATING';
        return ok({ resourceArn: `${ARN}${ks}/table/${String(b.tableName)}` });
      }
      case 'DeleteKeyspace':
        if (!k) return fault('ResourceNotFoundException', `Keyspace ${ks} not found`);
        keyspaces.delete(ks);
        return ok({});
      case 'ListKeyspaces':
        return ok({
          keyspaces: [
            { keyspaceName: 'system', resourceArn: `${ARN}system/`, replicationStrategy: 'SINGLE_REGION' },
            ...[...keyspaces.keys()].map((name) => ({
              keyspaceName: name,
              resourceArn: `${ARN}${name}/`,
              replicationStrategy: 'SINGLE_REGION',
            })),
          ],
        });
      case 'ListTagsForResource': {
        const name = String(b.resourceArn).slice(ARN.length).split('/')[0]!;
        const kk = keyspaces.get(name);
        if (!kk) return fault('ResourceNotFoundException', `${String(b.resourceArn)} not found`);
        return ok({ tags: kk.tags });
      }
      default:
        return fault('UnknownOperationException', `${op} is not answered by the test endpoint`);
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const op = target.replace(/^KeyspacesService\./, '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      calls.push({ op, body });
      const a = answer(op, body);
      res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(a.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    keyspaces,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

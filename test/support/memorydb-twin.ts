/**
 * moto server's MemoryDB backend (moto 5.x) serves clusters, subnet groups, users and tags, but not ACLs: CreateACL,
 * DescribeACLs and DeleteACL are not implemented. This loopback front answers those three itself, as the MemoryDB
 * API reference describes them (https://docs.aws.amazon.com/memorydb/latest/APIReference/API_CreateACL.html,
 * API_DeleteACL.html): names unique, every user named must exist (asked of moto's DescribeUsers), an ACL a live
 * cluster uses cannot be deleted, and CreateCluster naming an ACL that does not exist is refused (ACLNotFoundFault;
 * moto would accept it). ACLs carry the tags CreateACL gave them, and ListTags on an ACL's ARN answers them.
 * Everything else goes to moto unchanged; every MemoryDB call is recorded as sent.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MemoryDbTwin {
  endpoint: string;
  /** MemoryDB calls as received: operation and parsed body. */
  calls: { op: string; body: Record<string, unknown> }[];
  /** ACL name → its users. */
  acls: Map<string, string[]>;
  stop(): Promise<void>;
}

const PREFIX = 'AmazonMemoryDB.';
const AUTH =
  'AWS4-HMAC-SHA256 Credential=twin/20260101/us-east-1/memorydb/aws4_request, SignedHeaders=host, Signature=0';

async function motoCall(
  motoEndpoint: string,
  op: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${motoEndpoint}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `${PREFIX}${op}`,
      authorization: AUTH,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json().catch(() => ({})) };
}

export async function startMemoryDbTwin(motoEndpoint: string): Promise<MemoryDbTwin> {
  const calls: MemoryDbTwin['calls'] = [];
  const acls = new Map<string, string[]>();
  const aclTags = new Map<string, { Key: string; Value: string }[]>();
  const aclArn = (name: string) => `arn:aws:memorydb:us-east-1:123456789012:acl/${name}`;
  const fault = (type: string, message: string) => ({ status: 400, json: { __type: type, message } });
  const aclOf = (name: string) => ({
    Name: name,
    ARN: aclArn(name),
    Status: 'active',
    UserNames: acls.get(name) ?? [],
    Clusters: [],
  });

  async function liveClusterAcls(): Promise<Set<string>> {
    const out = (await motoCall(motoEndpoint, 'DescribeClusters', {})).json as {
      Clusters?: { ACLName?: string }[];
    };
    return new Set((out.Clusters ?? []).map((c) => c.ACLName ?? ''));
  }

  async function answer(
    op: string,
    b: Record<string, unknown>,
  ): Promise<{ status: number; json: unknown } | undefined> {
    const name = b.ACLName as string;
    switch (op) {
      case 'CreateACL': {
        if (acls.has(name)) return fault('ACLAlreadyExistsFault', `ACL ${name} already exists`);
        for (const user of (b.UserNames as string[]) ?? []) {
          const r = await motoCall(motoEndpoint, 'DescribeUsers', { UserName: user });
          if (r.status !== 200) return fault('UserNotFoundFault', `User ${user} not found`);
        }
        acls.set(name, (b.UserNames as string[]) ?? []);
        aclTags.set(name, (b.Tags as { Key: string; Value: string }[]) ?? []);
        return { status: 200, json: { ACL: aclOf(name) } };
      }
      case 'DescribeACLs':
        if (name && !acls.has(name)) return fault('ACLNotFoundFault', `ACL ${name} not found`);
        return { status: 200, json: { ACLs: (name ? [name] : [...acls.keys()]).map(aclOf) } };
      case 'DeleteACL': {
        if (!acls.has(name)) return fault('ACLNotFoundFault', `ACL ${name} not found`);
        if ((await liveClusterAcls()).has(name))
          return fault('InvalidParameterValueException', `ACL ${name} is in use`);
        const acl = aclOf(name);
        acls.delete(name);
        aclTags.delete(name);
        return { status: 200, json: { ACL: { ...acl, Status: 'deleting' } } };
      }
      case 'ListTags': {
        const arn = String(b.ResourceArn);
        if (!arn.includes(':acl/')) return undefined;
        const acl = arn.split('/').pop()!;
        if (!acls.has(acl)) return fault('ACLNotFoundFault', `ACL ${acl} not found`);
        return { status: 200, json: { TagList: aclTags.get(acl) ?? [] } };
      }
      case 'CreateCluster':
        if (name && name !== 'open-access' && !acls.has(name))
          return fault('ACLNotFoundFault', `ACL ${name} not found`);
        return undefined;
      default:
        return undefined;
    }
  }

  async function toMoto(req: http.IncomingMessage, body: Buffer): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const res = await fetch(`${motoEndpoint}${req.url ?? '/'}`, {
      method: req.method,
      headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    });
    return { status: res.status, text: await res.text() };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const target = String(req.headers['x-amz-target'] ?? '');
        try {
          if (target.startsWith(PREFIX)) {
            const op = target.slice(PREFIX.length);
            const parsed = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
            calls.push({ op, body: parsed });
            const a = await answer(op, parsed);
            if (a) {
              res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.1' });
              res.end(JSON.stringify(a.json));
              return;
            }
          }
          const m = await toMoto(req, body);
          res.writeHead(m.status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(m.text);
        } catch (err) {
          res.writeHead(500);
          res.end(String(err));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    acls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

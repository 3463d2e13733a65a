/**
 * moto server's DAX backend (moto 5.2) serves clusters (CreateCluster, DescribeClusters, DeleteCluster, tags,
 * replication factor) but not subnet groups or parameter groups: CreateSubnetGroup and CreateParameterGroup
 * answer HTTP 500. This loopback front answers those calls itself, as the DAX API reference describes them
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Accelerator_(DAX).html):
 * names unique, a group in use by a cluster cannot be deleted, a cluster naming a missing group is refused, and
 * CreateSubnetGroup refuses subnets EC2 does not know (InvalidSubnet, asked of moto's EC2). It records every such
 * request as sent, and passes everything else to moto unchanged. Clusters are `creating` for `creatingPolls`
 * reads of their status before `available` (and `deleting` as long before they are gone), as DAX takes minutes:
 * moto's state manager in manual mode.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DaxTwin {
  endpoint: string;
  /** DAX group calls as received: operation and parsed body. */
  calls: { op: string; body: Record<string, unknown> }[];
  subnetGroups: Map<string, string[]>;
  parameterGroups: Map<string, Record<string, string>>;
  stop(): Promise<void>;
}

const PREFIX = 'AmazonDAXV3.';

/** A DescribeClusters of every cluster (no ClusterNames). */
function listAll(target: string, body: Buffer): boolean {
  if (target !== `${PREFIX}DescribeClusters`) return false;
  const b = JSON.parse(body.toString('utf8') || '{}') as { ClusterNames?: string[] };
  return !b.ClusterNames?.length;
}

/** Asks moto's EC2 for the subnets; the first it does not know, or null. */
async function unknownSubnet(motoEndpoint: string, ids: string[]): Promise<string | null> {
  for (const id of ids) {
    const res = await fetch(`${motoEndpoint}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization:
          'AWS4-HMAC-SHA256 Credential=twin/20260101/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: new URLSearchParams({
        Action: 'DescribeSubnets',
        Version: '2016-11-15',
        'SubnetId.1': id,
      }).toString(),
    });
    if (res.status !== 200) return id;
  }
  return null;
}

export async function startDaxTwin(
  motoEndpoint: string,
  options: { creatingPolls?: number } = {},
): Promise<DaxTwin> {
  const transition = await fetch(`${motoEndpoint}/moto-api/state-manager/set-transition`, {
    method: 'POST',
    body: JSON.stringify({
      model_name: 'dax::cluster',
      transition: { progression: 'manual', times: options.creatingPolls ?? 3 },
    }),
  });
  if (transition.status !== 201) throw new Error(`moto refused the DAX transition: ${transition.status}`);
  const calls: DaxTwin['calls'] = [];
  const subnetGroups = new Map<string, string[]>();
  const parameterGroups = new Map<string, Record<string, string>>();
  /** cluster name → the groups its CreateCluster named (moto does not keep them). */
  const clusterGroups = new Map<string, { subnet?: string; parameter?: string }>();

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

  async function liveClusters(): Promise<Set<string>> {
    const res = await fetch(`${motoEndpoint}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': `${PREFIX}DescribeClusters`,
        authorization:
          'AWS4-HMAC-SHA256 Credential=twin/20260101/us-east-1/dax/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    const out = (await res.json()) as { Clusters?: { ClusterName: string; Status: string }[] };
    return new Set((out.Clusters ?? []).filter((c) => c.Status !== 'deleted').map((c) => c.ClusterName));
  }

  async function inUse(kind: 'subnet' | 'parameter', name: string): Promise<boolean> {
    const live = await liveClusters();
    return [...clusterGroups.entries()].some(([c, g]) => live.has(c) && g[kind] === name);
  }

  const fault = (type: string, message: string) => ({ status: 400, json: { __type: type, message } });

  async function answer(
    op: string,
    b: Record<string, unknown>,
  ): Promise<{ status: number; json: unknown } | undefined> {
    const name = (b.SubnetGroupName ?? b.ParameterGroupName) as string;
    switch (op) {
      case 'CreateSubnetGroup': {
        if (subnetGroups.has(name)) return fault('SubnetGroupAlreadyExistsFault', `${name} exists`);
        const unknown = await unknownSubnet(motoEndpoint, (b.SubnetIds as string[]) ?? []);
        if (unknown) return fault('InvalidSubnet', `An invalid subnet identifier was specified: ${unknown}`);
        subnetGroups.set(name, b.SubnetIds as string[]);
        return {
          status: 200,
          json: {
            SubnetGroup: {
              SubnetGroupName: name,
              Subnets: (b.SubnetIds as string[]).map((id) => ({ SubnetIdentifier: id })),
            },
          },
        };
      }
      case 'DeleteSubnetGroup':
        if (!subnetGroups.has(name)) return fault('SubnetGroupNotFoundFault', `${name} not found`);
        if (await inUse('subnet', name)) return fault('SubnetGroupInUseFault', `${name} is in use`);
        subnetGroups.delete(name);
        return { status: 200, json: { DeletionMessage: `${name} deleted` } };
      case 'CreateParameterGroup':
        if (parameterGroups.has(name)) return fault('ParameterGroupAlreadyExistsFault', `${name} exists`);
        parameterGroups.set(name, { 'record-ttl-millis': '300000', 'query-ttl-millis': '300000' });
        return {
          status: 200,
          json: { ParameterGroup: { ParameterGroupName: name, Description: b.Description } },
        };
      case 'UpdateParameterGroup': {
        const g = parameterGroups.get(name);
        if (!g) return fault('ParameterGroupNotFoundFault', `${name} not found`);
        for (const p of b.ParameterNameValues as { ParameterName: string; ParameterValue: string }[]) {
          if (!(p.ParameterName in g))
            return fault('InvalidParameterValueException', `${p.ParameterName} is not a parameter`);
          g[p.ParameterName] = p.ParameterValue;
        }
        return { status: 200, json: { ParameterGroup: { ParameterGroupName: name } } };
      }
      case 'DeleteParameterGroup':
        if (!parameterGroups.has(name)) return fault('ParameterGroupNotFoundFault', `${name} not found`);
        if (await inUse('parameter', name))
          return fault('InvalidParameterGroupStateFault', `${name} is in use`);
        parameterGroups.delete(name);
        return { status: 200, json: { DeletionMessage: `${name} deleted` } };
      case 'CreateCluster': {
        const subnet = b.SubnetGroupName as string | undefined;
        const parameter = b.ParameterGroupName as string | undefined;
        if (subnet && !subnetGroups.has(subnet))
          return fault('SubnetGroupNotFoundFault', `${subnet} not found`);
        if (parameter && !parameterGroups.has(parameter))
          return fault('ParameterGroupNotFoundFault', `${parameter} not found`);
        clusterGroups.set(b.ClusterName as string, { subnet, parameter });
        return undefined; // moto creates it
      }
      default:
        return undefined;
    }
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
            if (/Group|CreateCluster/.test(op)) calls.push({ op, body: parsed });
            const a = await answer(op, parsed);
            if (a) {
              res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.1' });
              res.end(JSON.stringify(a.json));
              return;
            }
          }
          let m = await toMoto(req, body);
          // moto 5.2 answers a DescribeClusters of all clusters with ClusterNotFoundFault when one of them
          // reaches `deleted` while it lists them (DAX lists the others): ask again, it is gone then
          for (let i = 0; i < 3 && listAll(target, body) && /ClusterNotFoundFault/.test(m.text); i++)
            m = await toMoto(req, body);
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
    subnetGroups,
    parameterGroups,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

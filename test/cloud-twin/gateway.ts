/**
 * The twin's AWS endpoint: every SDK call of a Lambda or a loader agent comes here (AWS_ENDPOINT_URL),
 * signed with credentials whose access key names the caller's role. Each call is mapped to IAM
 * actions/resources (./iam.ts) and evaluated against that role's policies from the template; a
 * denied or unmapped call is answered as AWS would (AccessDenied) and recorded. Allowed calls go to
 * DynamoDB Local (dynamodb) or moto server (everything else), except the SSM Run Command calls
 * moto cannot serve, which the SSM twin (./ssm-twin.ts) answers.
 */
import * as http from 'node:http';
import { evaluate, mapRequest, UnmappedOperation, type ApiRequest, type Mapped, type TopicKey } from './iam';

export interface Principal {
  /** Who calls (a function's logical id, or `loader`), for messages. */
  name: string;
  roleArn: string;
  policies: { name: string; doc: unknown }[];
}

export interface CallRecord {
  principal: string;
  operation: string;
  action: string;
  resource: string;
  result: string;
}

/** What the SSM twin answers itself (moto lacks these, or executes nothing). */
export interface SsmHooks {
  /** After moto accepted a SendCommand: run it. */
  sent(commandId: string, params: Record<string, unknown>): void;
  answer(op: string, params: Record<string, unknown>): Promise<unknown> | undefined;
  /** After TerminateInstances: what ran on them stops. */
  terminated(ids: string[]): void;
}

export interface GatewayOptions {
  motoPort: number;
  dynamodbPort: number;
  principals: Map<string, Principal>;
  instanceTags: (ids: string[]) => Promise<Record<string, Record<string, string>>>;
  launchTemplateRole: (ltId: string) => string | undefined;
  /** The role an instance profile ARN carries (RunInstances' IamInstanceProfile passes it). */
  instanceProfileRole?: (profileArn: string) => string | undefined;
  ssm: SsmHooks;
  /** The DAX front (test/support/dax-twin.ts) that `dax` calls go to; its tags lookups for security groups. */
  daxPort?: number;
  securityGroupTags?: (ids: string[]) => Promise<Record<string, Record<string, string>>>;
  /**
   * Whether an instance's call cannot leave its VPC for the service (its security group's egress, as the
   * twin's network sees it: ./network.ts); the refusal is recorded there. Lambdas are in no VPC.
   */
  network?: (principal: Principal, service: string) => boolean;
  /** The KMS key of an encrypted topic (sns:Publish needs the key too: ./iam.ts). */
  topicKey?: (topicArn: string) => TopicKey | undefined;
  /** A secret's tags (DeleteSecret's aws:ResourceTag conditions). */
  secretTags?: (id: string) => Promise<Record<string, string>>;
}

/** A refusal the cloud can give (capacity, throttling), injected on the n-th call of an operation. */
export interface Fault {
  operation: string;
  /** Calls of the operation let through first. @default 0 */
  skip?: number;
  code: string;
  message: string;
}

export class Gateway {
  readonly calls: CallRecord[] = [];
  private faults: (Fault & { seen: number })[] = [];
  private readonly tags = new Map<string, { Key: string; Value: string }[]>();
  /** MemoryDB and Keyspaces resources' tags by ARN, as their creation gave them (for their deletes' conditions). */
  private readonly resourceTags = new Map<string, Record<string, string>>();
  private server?: http.Server;
  port = 0;
  /** Services answered by another local endpoint (signing name → port), e.g. cassandra → the Keyspaces twin. */
  readonly upstreams = new Map<string, number>();

  constructor(private readonly o: GatewayOptions) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Calls IAM refused (or the twin could not map), as `principal: action on resource (result)`. */
  denials(): string[] {
    return this.calls
      .filter((c) => c.result !== 'Allowed')
      .map((c) => `${c.principal}: ${c.action} on ${c.resource} (${c.result})`);
  }

  /**
   * DynamoDB Local has no tagging ("Tagging is not currently supported"): the twin keeps table tags,
   * given at CreateTable or by TagResource, and answers ListTagsOfResource from them.
   */
  private tableTags(m: Mapped): object | undefined {
    const name = (arn: unknown) => String(arn).split('/').pop()!;
    if (m.operation === 'dynamodb:TagResource') {
      const t = name(m.params.ResourceArn);
      const merged = new Map((this.tags.get(t) ?? []).map((x) => [x.Key, x.Value]));
      for (const x of m.params.Tags as { Key: string; Value: string }[]) merged.set(x.Key, x.Value);
      this.tags.set(
        t,
        [...merged].map(([Key, Value]) => ({ Key, Value })),
      );
      return {};
    }
    if (m.operation === 'dynamodb:ListTagsOfResource')
      return { Tags: this.tags.get(name(m.params.ResourceArn)) ?? [] };
    return undefined;
  }

  /**
   * After a MemoryDB or Keyspaces call succeeded: a creation with tags (its TagResource check on the new resource,
   * with the request's tags) records them; a delete forgets them.
   */
  private keepResourceTags(m: Mapped): void {
    for (const c of m.checks) {
      if (c.action === 'memorydb:TagResource' || c.action === 'cassandra:TagResource') {
        const tags: Record<string, string> = { ...this.resourceTags.get(c.resource) };
        for (const [k, v] of Object.entries(c.context))
          if (k.startsWith('aws:RequestTag/') && typeof v === 'string')
            tags[k.slice('aws:RequestTag/'.length)] = v;
        this.resourceTags.set(c.resource, tags);
      }
      if (/^(memorydb:Delete|cassandra:Drop)/.test(c.action)) this.resourceTags.delete(c.resource);
    }
  }

  /** Tags of a table created outside the gateway (a test's fixture). */
  setTableTags(table: string, tags: Record<string, string>): void {
    this.tags.set(
      table,
      Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
    );
  }

  injectFault(f: Fault): void {
    this.faults.push({ ...f, seen: 0 });
  }

  clearFaults(): void {
    this.faults = [];
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req, Buffer.concat(chunks), res).catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`twin gateway: ${(err as Error).stack ?? String(err)}`);
        });
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async handle(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void> {
    const auth = String(req.headers.authorization ?? '');
    const m = /Credential=([^/]+)\/\d+\/([^/]+)\/([^/]+)\//.exec(auth);
    if (!m) return refuse(res, 'unknown', 'MissingAuthenticationToken', 'unsigned request');
    const [, accessKey, , service] = m as unknown as [string, string, string, string];
    const principal = this.o.principals.get(accessKey);
    const url = new URL(req.url ?? '/', 'http://twin');
    const api: ApiRequest = {
      service,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    if (!principal)
      return refuse(res, service, 'InvalidClientTokenId', `no role for access key ${accessKey}`);
    // a connection its security group refuses never reaches the service (the SDK sees a timeout)
    if (this.o.network?.(principal, service))
      return refuse(
        res,
        service,
        'RequestTimeout',
        `fleetbench twin: ${principal.name} cannot reach ${service}`,
        504,
      );
    let mapped: Mapped;
    try {
      mapped = await mapRequest(api, {
        instanceTags: this.o.instanceTags,
        launchTemplateRole: this.o.launchTemplateRole,
        ...(this.o.instanceProfileRole ? { instanceProfileRole: this.o.instanceProfileRole } : {}),
        ...(this.o.securityGroupTags ? { securityGroupTags: this.o.securityGroupTags } : {}),
        ...(this.o.topicKey ? { topicKey: this.o.topicKey } : {}),
        ...(this.o.secretTags ? { secretTags: this.o.secretTags } : {}),
        resourceTags: (arn) => this.resourceTags.get(arn) ?? {},
      });
    } catch (err) {
      if (!(err instanceof UnmappedOperation)) throw err;
      this.calls.push({
        principal: principal.name,
        operation: `${service} ${api.method} ${api.path}`,
        action: '?',
        resource: '?',
        result: `Unmapped: ${err.message}`,
      });
      return refuse(res, service, 'AccessDenied', `fleetbench twin: ${err.message}`);
    }
    for (const check of mapped.checks) {
      const d = await evaluate(principal.roleArn, principal.policies, check);
      this.calls.push({
        principal: principal.name,
        operation: mapped.operation,
        action: check.action,
        resource: check.resource,
        result: d.result,
      });
      if (!d.allowed) {
        return refuse(
          res,
          service,
          service === 'ec2' ? 'UnauthorizedOperation' : 'AccessDenied',
          `User: ${principal.roleArn} is not authorized to perform: ${check.action} on resource: ${check.resource} (${d.result}; fleetbench twin, ${principal.name})`,
        );
      }
    }
    const fault = this.faults.find((f) => f.operation === mapped.operation);
    if (fault && fault.seen++ >= (fault.skip ?? 0)) {
      this.faults.splice(this.faults.indexOf(fault), 1);
      return refuse(res, service, fault.code, fault.message, 400);
    }
    if (service === 'dynamodb') {
      const tagged = this.tableTags(mapped);
      if (tagged) {
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(tagged));
        return;
      }
    }
    if (service === 'ssm') {
      const op = mapped.operation.split(':')[1]!;
      const answer = this.o.ssm.answer(op, mapped.params);
      if (answer) {
        const out = await answer;
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(out));
        return;
      }
    }
    const port =
      this.upstreams.get(service) ??
      (service === 'dynamodb'
        ? this.o.dynamodbPort
        : service === 'dax' && this.o.daxPort
          ? this.o.daxPort
          : this.o.motoPort);
    const upstream = await forward(port, req, body);
    if (upstream.status < 300) {
      if (mapped.operation === 'ssm:SendCommand') {
        const id = (JSON.parse(upstream.body.toString('utf8')) as { Command: { CommandId: string } }).Command
          .CommandId;
        this.o.ssm.sent(id, mapped.params);
      }
      if (mapped.operation === 'dynamodb:CreateTable' && Array.isArray(mapped.params.Tags))
        this.tags.set(
          String(mapped.params.TableName),
          mapped.params.Tags as { Key: string; Value: string }[],
        );
      if (mapped.operation === 'dynamodb:DeleteTable') this.tags.delete(String(mapped.params.TableName));
      this.keepResourceTags(mapped);
      if (mapped.operation === 'ec2:TerminateInstances')
        this.o.ssm.terminated(mapped.checks.map((c) => c.resource.split('/').pop()!));
    }
    res.writeHead(upstream.status, upstream.headers);
    res.end(upstream.body);
  }
}

function forward(
  port: number,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const up = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () =>
          resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(chunks) }),
        );
        r.on('error', reject);
      },
    );
    up.on('error', reject);
    up.end(body);
  });
}

/** An error (AccessDenied, an injected fault) in the caller's protocol (JSON for JSON services, XML for S3/EC2/SNS). */
function refuse(
  res: http.ServerResponse,
  service: string,
  code: string,
  message: string,
  status = 403,
): void {
  if (['s3', 'ec2', 'sns'].includes(service)) {
    const esc = message.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const xml =
      service === 's3'
        ? `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${esc}</Message></Error>`
        : service === 'ec2'
          ? `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>${code}</Code><Message>${esc}</Message></Error></Errors><RequestID>twin</RequestID></Response>`
          : `<ErrorResponse><Error><Type>Sender</Type><Code>AuthorizationError</Code><Message>${esc}</Message></Error></ErrorResponse>`;
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(xml);
    return;
  }
  const type = code === 'AccessDenied' ? 'AccessDeniedException' : code;
  res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type });
  res.end(JSON.stringify({ __type: type, message, Message: message }));
}

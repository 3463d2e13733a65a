/**
 * The run's secrets on this machine (cassandra-ec2 logins, lib/core/targets/cassandra-ec2/cql-auth.ts): the SecretAdmin port in
 * memory, and Secrets Manager's GetSecretValue on a loopback port for the loader agents, which reach it as
 * they reach Secrets Manager (`FLEETBENCH_SECRETS_ENDPOINT`, the AWS SDK's JSON 1.1 protocol). The values
 * live only in this process and are gone when the run ends.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConflictError, type SecretAdmin, type Tags } from '../core/common/ports';

interface Stored {
  arn: string;
  name: string;
  value: string;
  tags: Tags;
}

export class LocalSecrets implements SecretAdmin {
  private readonly byName = new Map<string, Stored>();
  private server?: http.Server;

  async createSecret(req: { name: string; value: string; tags: Tags }): Promise<string> {
    if (this.byName.has(req.name)) throw new ConflictError(`secret ${req.name} already exists`);
    const arn = `arn:aws:secretsmanager:us-east-1:000000000000:secret:${req.name}-local`;
    this.byName.set(req.name, { arn, ...req, tags: { ...req.tags } });
    return arn;
  }

  async describeSecret(name: string): Promise<{ arn: string; tags: Tags } | null> {
    const s = this.byName.get(name);
    return s ? { arn: s.arn, tags: { ...s.tags } } : null;
  }

  async secretString(id: string): Promise<string> {
    const v = this.value(id);
    if (v === undefined) throw new Error(`secret ${id} does not exist`);
    return v;
  }

  async deleteSecret(arn: string): Promise<void> {
    for (const [name, s] of this.byName) if (s.arn === arn) this.byName.delete(name);
  }

  async listSecrets(prefix: string): Promise<{ name: string; arn: string; tags: Tags }[]> {
    return [...this.byName.values()]
      .filter((s) => s.name.startsWith(prefix))
      .map((s) => ({ name: s.name, arn: s.arn, tags: { ...s.tags } }));
  }

  /** A secret's value by ARN or name (the local schema step and tests). */
  value(id: string): string | undefined {
    return [...this.byName.values()].find((s) => s.arn === id || s.name === id)?.value;
  }

  /** Serves GetSecretValue on 127.0.0.1; the endpoint URL. */
  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (b: Buffer) => (body += b.toString()));
      req.on('end', () => {
        const answer = (status: number, o: object) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify(o));
        };
        let id: unknown;
        try {
          id = (JSON.parse(body) as { SecretId?: unknown }).SecretId;
        } catch {
          /* answered below */
        }
        const s = [...this.byName.values()].find((x) => x.arn === id || x.name === id);
        if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue' || typeof id !== 'string')
          return answer(400, { __type: 'InvalidRequestException', message: 'GetSecretValue only' });
        if (!s) return answer(400, { __type: 'ResourceNotFoundException', message: `no secret ${id}` });
        answer(200, { ARN: s.arn, Name: s.name, SecretString: s.value, VersionId: 'local' });
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

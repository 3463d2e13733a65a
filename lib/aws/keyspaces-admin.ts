/**
 * KeyspacesAdmin on the Amazon Keyspaces API (SDK v3): a single-region keyspace per run, the YCSB table in it
 * (on-demand or provisioned), its status and capacity (and a capacity change), and deletion of the keyspace with its tables. Errors: an existing
 * keyspace or table (ConflictException) is a ConflictError; ResourceNotFoundException means MISSING/false.
 */
import {
  ConflictException,
  CreateKeyspaceCommand,
  CreateTableCommand,
  DeleteKeyspaceCommand,
  GetKeyspaceCommand,
  GetTableCommand,
  KeyspacesClient,
  ListKeyspacesCommand,
  ListTagsForResourceCommand,
  UpdateTableCommand,
  type KeyspacesClientConfig,
} from '@aws-sdk/client-keyspaces';
import {
  KEYSPACE_PREFIX,
  capacitySpecification,
  keyspacesNameProblems,
  ycsbColumns,
  type KeyspacesCapacity,
} from '../core/targets/keyspaces/keyspace';
import {
  CloudError,
  ConflictError,
  TAG_RUN_ID,
  type KeyspacesAdmin,
  type KeyspacesTableRequest,
  type KeyspacesTableState,
  type Tags,
} from '../core/common/ports';
import { errorName, translate } from './errors';

export class KeyspacesApiAdmin implements KeyspacesAdmin {
  readonly client: KeyspacesClient;

  constructor(clientOrConfig: KeyspacesClient | KeyspacesClientConfig = {}) {
    this.client =
      clientOrConfig instanceof KeyspacesClient ? clientOrConfig : new KeyspacesClient(clientOrConfig);
  }

  async createKeyspace(name: string, tags: Tags): Promise<void> {
    checkName('keyspace', name);
    await this.send(`CreateKeyspace ${name}`, () =>
      this.client.send(
        new CreateKeyspaceCommand({
          keyspaceName: name,
          replicationSpecification: { replicationStrategy: 'SINGLE_REGION' },
          tags: tagList(tags),
        }),
      ),
    );
  }

  async createTable(req: KeyspacesTableRequest): Promise<void> {
    checkName('keyspace', req.keyspace);
    checkName('table', req.table);
    await this.send(`CreateTable ${req.keyspace}.${req.table}`, () =>
      this.client.send(
        new CreateTableCommand({
          keyspaceName: req.keyspace,
          tableName: req.table,
          schemaDefinition: ycsbColumns(req.fieldCount),
          capacitySpecification: capacitySpecification(req.capacity),
          tags: tagList(req.tags),
        }),
      ),
    );
  }

  async describeTable(keyspace: string, table: string): Promise<KeyspacesTableState> {
    try {
      const t = await this.client.send(new GetTableCommand({ keyspaceName: keyspace, tableName: table }));
      const c = t.capacitySpecification;
      let capacity: KeyspacesCapacity | undefined;
      if (c?.throughputMode === 'PAY_PER_REQUEST') capacity = { mode: 'on-demand' };
      else if (c?.throughputMode === 'PROVISIONED') {
        capacity = { mode: 'provisioned', rcu: c.readCapacityUnits ?? 0, wcu: c.writeCapacityUnits ?? 0 };
      }
      return { keyspace, table, status: t.status ?? 'UNKNOWN', ...(capacity ? { capacity } : {}) };
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return { keyspace, table, status: 'MISSING' };
      throw translate('Keyspaces', `GetTable ${keyspace}.${table}`, err);
    }
  }

  async updateCapacity(keyspace: string, table: string, capacity: KeyspacesCapacity): Promise<void> {
    await this.send(`UpdateTable ${keyspace}.${table}`, () =>
      this.client.send(
        new UpdateTableCommand({
          keyspaceName: keyspace,
          tableName: table,
          capacitySpecification: capacitySpecification(capacity),
        }),
      ),
    );
  }

  async keyspaceTags(name: string): Promise<Tags | null> {
    let arn: string | undefined;
    try {
      arn = (await this.client.send(new GetKeyspaceCommand({ keyspaceName: name }))).resourceArn;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return null;
      throw translate('Keyspaces', `GetKeyspace ${name}`, err);
    }
    if (!arn) throw new CloudError('Keyspaces', `GetKeyspace ${name}: the answer has no resourceArn`);
    try {
      return await this.tagsOf(arn);
    } catch (err) {
      // deleted between the two calls
      if (errorName((err as Error).cause) === 'ResourceNotFoundException') return null;
      throw err;
    }
  }

  async deleteKeyspace(name: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteKeyspaceCommand({ keyspaceName: name }));
      return true;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return false;
      throw translate('Keyspaces', `DeleteKeyspace ${name}`, err);
    }
  }

  async listKeyspaces(filter: { runId?: string }): Promise<{ name: string; tags: Tags }[]> {
    const out: { name: string; tags: Tags }[] = [];
    let token: string | undefined;
    do {
      const page = await this.send('ListKeyspaces', () =>
        this.client.send(new ListKeyspacesCommand({ nextToken: token })),
      );
      for (const k of page.keyspaces ?? []) {
        if (!k.keyspaceName?.startsWith(KEYSPACE_PREFIX)) continue; // system keyspaces and others' keyspaces
        const tags = await this.tagsOf(k.resourceArn!);
        const run = tags[TAG_RUN_ID];
        if (run === undefined || (filter.runId !== undefined && run !== filter.runId)) continue;
        out.push({ name: k.keyspaceName, tags });
      }
      token = page.nextToken;
    } while (token);
    return out;
  }

  private async tagsOf(arn: string): Promise<Tags> {
    const tags: Tags = {};
    let token: string | undefined;
    do {
      const out = await this.send(`ListTagsForResource ${arn}`, () =>
        this.client.send(new ListTagsForResourceCommand({ resourceArn: arn, nextToken: token })),
      );
      for (const t of out.tags ?? []) if (t.key) tags[t.key] = t.value ?? '';
      token = out.nextToken;
    } while (token);
    return tags;
  }

  private async send<T>(action: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ConflictException || errorName(err) === 'ConflictException') {
        throw new ConflictError(`Keyspaces ${action}: already exists`, { cause: err });
      }
      throw translate('Keyspaces', action, err);
    }
  }
}

function checkName(kind: string, name: string): void {
  const p = keyspacesNameProblems(name);
  if (p.length) throw new Error(`Keyspaces ${kind} name ${p.join('; ')}`);
}

function tagList(tags: Tags): { key: string; value: string }[] {
  return Object.entries(tags).map(([key, value]) => ({ key, value }));
}

/** DynamoDbAdmin on DynamoDB (SDK v3). Works against DynamoDB Local as well. */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ListTagsOfResourceCommand,
  TagResourceCommand,
  UpdateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDbAdmin, TableDefinition, TableState, Tags } from '../core/common/ports';
import { errorName, translate } from './errors';

export class DynamoDbTableAdmin implements DynamoDbAdmin {
  readonly client: DynamoDBClient;
  constructor(clientOrConfig: DynamoDBClient | DynamoDBClientConfig = {}) {
    this.client =
      clientOrConfig instanceof DynamoDBClient ? clientOrConfig : new DynamoDBClient(clientOrConfig);
  }

  async createTable(def: TableDefinition): Promise<void> {
    const input: CreateTableCommandInput = {
      TableName: def.name,
      AttributeDefinitions: [
        { AttributeName: def.keyAttribute, AttributeType: 'S' },
        ...(def.sortKeyAttribute
          ? [{ AttributeName: def.sortKeyAttribute, AttributeType: 'S' as const }]
          : []),
      ],
      KeySchema: [
        { AttributeName: def.keyAttribute, KeyType: 'HASH' },
        ...(def.sortKeyAttribute ? [{ AttributeName: def.sortKeyAttribute, KeyType: 'RANGE' as const }] : []),
      ],
      TableClass: def.tableClass,
      Tags: Object.entries(def.tags).map(([Key, Value]) => ({ Key, Value })),
    };
    if (def.billing.mode === 'provisioned') {
      input.BillingMode = 'PROVISIONED';
      input.ProvisionedThroughput = {
        ReadCapacityUnits: def.billing.rcu,
        WriteCapacityUnits: def.billing.wcu,
      };
    } else {
      input.BillingMode = 'PAY_PER_REQUEST';
      if (def.billing.maxReadRequestUnits || def.billing.maxWriteRequestUnits) {
        input.OnDemandThroughput = {
          ...(def.billing.maxReadRequestUnits
            ? { MaxReadRequestUnits: def.billing.maxReadRequestUnits }
            : {}),
          ...(def.billing.maxWriteRequestUnits
            ? { MaxWriteRequestUnits: def.billing.maxWriteRequestUnits }
            : {}),
        };
      }
    }
    if (def.warmThroughput) {
      input.WarmThroughput = {
        ReadUnitsPerSecond: def.warmThroughput.readUnitsPerSecond,
        WriteUnitsPerSecond: def.warmThroughput.writeUnitsPerSecond,
      };
    }
    try {
      await this.client.send(new CreateTableCommand(input));
    } catch (err) {
      throw translate('DynamoDB', `CreateTable ${def.name}`, err);
    }
  }

  async describeTable(name: string): Promise<TableState> {
    try {
      const out = await this.client.send(new DescribeTableCommand({ TableName: name }));
      const t = out.Table!;
      const mode = t.BillingModeSummary?.BillingMode;
      return {
        name,
        status: t.TableStatus ?? 'UNKNOWN',
        billingMode: mode === 'PAY_PER_REQUEST' ? 'PAY_PER_REQUEST' : 'PROVISIONED',
        rcu: t.ProvisionedThroughput?.ReadCapacityUnits,
        wcu: t.ProvisionedThroughput?.WriteCapacityUnits,
      };
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return { name, status: 'MISSING' };
      throw translate('DynamoDB', `DescribeTable ${name}`, err);
    }
  }

  async updateCapacity(name: string, capacity: { rcu: number; wcu: number }): Promise<void> {
    const cur = await this.describeTable(name);
    if (cur.rcu === capacity.rcu && cur.wcu === capacity.wcu) return;
    try {
      await this.client.send(
        new UpdateTableCommand({
          TableName: name,
          ProvisionedThroughput: { ReadCapacityUnits: capacity.rcu, WriteCapacityUnits: capacity.wcu },
        }),
      );
    } catch (err) {
      throw translate('DynamoDB', `UpdateTable ${name}`, err);
    }
  }

  async deleteTable(name: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteTableCommand({ TableName: name }));
      return true;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return false;
      throw translate('DynamoDB', `DeleteTable ${name}`, err);
    }
  }

  private async arnOf(name: string): Promise<string> {
    const out = await this.client.send(new DescribeTableCommand({ TableName: name }));
    return out.Table!.TableArn!;
  }

  async tagTable(name: string, tags: Tags): Promise<void> {
    try {
      await this.client.send(
        new TagResourceCommand({
          ResourceArn: await this.arnOf(name),
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
    } catch (err) {
      throw translate('DynamoDB', `TagResource ${name}`, err);
    }
  }

  async listTables(prefix: string): Promise<{ name: string; tags: Tags }[]> {
    const names: string[] = [];
    let start: string | undefined;
    try {
      do {
        const out = await this.client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
        names.push(...(out.TableNames ?? []).filter((n) => n.startsWith(prefix)));
        start = out.LastEvaluatedTableName;
      } while (start);
    } catch (err) {
      throw translate('DynamoDB', 'ListTables', err);
    }
    const result: { name: string; tags: Tags }[] = [];
    for (const name of names) {
      const tags = await this.tableTags(name);
      if (tags) result.push({ name, tags }); // else deleted meanwhile
    }
    return result;
  }

  async tableTags(name: string): Promise<Tags | null> {
    try {
      const arn = await this.arnOf(name);
      const tags: Tags = {};
      let token: string | undefined;
      do {
        const out = await this.client.send(
          new ListTagsOfResourceCommand({ ResourceArn: arn, NextToken: token }),
        );
        for (const t of out.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
        token = out.NextToken;
      } while (token);
      return tags;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return null;
      throw translate('DynamoDB', `ListTagsOfResource ${name}`, err);
    }
  }
}

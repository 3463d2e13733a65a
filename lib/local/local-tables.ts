/**
 * The local mode's TableAdmin: DynamoDB Local over the AWS adapter, with the tags kept here. DynamoDB Local
 * accepts Tags on CreateTable and drops them, and answers ListTagsOfResource with "Tagging is not currently
 * supported in DynamoDB Local": Teardown reads a table's run tag before deleting it (lib/core/pipeline/ownership.ts),
 * so this process remembers the tags of the tables it created or tagged. A table it did not create (preloaded)
 * has no tags here: Teardown keeps it.
 */
import { DynamoDbTableAdmin } from '../aws/dynamodb-tables';
import type { TableDefinition, Tags } from '../core/ports';

export class LocalTableAdmin extends DynamoDbTableAdmin {
  private readonly tags = new Map<string, Tags>();

  override async createTable(def: TableDefinition): Promise<void> {
    await super.createTable(def);
    this.tags.set(def.name, { ...def.tags });
  }

  override async tagTable(name: string, tags: Tags): Promise<void> {
    if ((await this.describeTable(name)).status === 'MISSING')
      throw new Error(`DynamoDB Local: TagResource ${name}: no such table`);
    this.tags.set(name, { ...this.tags.get(name), ...tags });
  }

  override async tableTags(name: string): Promise<Tags | null> {
    if ((await this.describeTable(name)).status === 'MISSING') {
      this.tags.delete(name);
      return null;
    }
    return { ...this.tags.get(name) };
  }

  override async deleteTable(name: string): Promise<boolean> {
    const deleted = await super.deleteTable(name);
    this.tags.delete(name);
    return deleted;
  }
}

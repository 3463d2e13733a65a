/**
 * The local mode's DynamoDbAdmin: DynamoDB Local over the AWS adapter, with the tags kept here. DynamoDB Local
 * accepts Tags on CreateTable and drops them, and answers ListTagsOfResource with "Tagging is not currently
 * supported in DynamoDB Local": Teardown reads a table's run tag before deleting it (lib/core/pipeline/ownership.ts),
 * so this process remembers the tags of the tables it created or tagged. A table it did not create (preloaded)
 * has no tags here: Teardown keeps it.
 */
import { DynamoDbTableAdmin } from '../aws/dynamodb-tables';
import type { TableDefinition, Tags } from '../core/common/ports';

export class LocalTableAdmin extends DynamoDbTableAdmin {
  private readonly tags = new Map<string, Tags>();
  /** Every table created and deleted through this admin, in order (what a run did, for tests). */
  readonly log: { op: 'create' | 'delete'; name: string; atMs: number }[] = [];

  override async createTable(def: TableDefinition): Promise<void> {
    // the tags first, as CreateTable sets them on AWS with the table: a Teardown that runs while this call is
    // in flight (another Map iteration failed) finds the new table already tagged with its run
    const before = this.tags.get(def.name);
    this.tags.set(def.name, { ...def.tags });
    try {
      await super.createTable(def);
      this.log.push({ op: 'create', name: def.name, atMs: Date.now() });
    } catch (err) {
      if (before) this.tags.set(def.name, before);
      else this.tags.delete(def.name);
      throw err;
    }
  }

  override async tagTable(name: string, tags: Tags): Promise<void> {
    if ((await this.describeTable(name)).status === 'MISSING')
      throw new Error(`DynamoDB Local: TagResource ${name}: no such table`);
    this.tags.set(name, { ...this.tags.get(name), ...tags });
  }

  override async tableTags(name: string): Promise<Tags | null> {
    // (a table being created has its tags here already: they are not dropped while it is still MISSING)
    if ((await this.describeTable(name)).status === 'MISSING') return null;
    return { ...this.tags.get(name) };
  }

  override async deleteTable(name: string): Promise<boolean> {
    const deleted = await super.deleteTable(name);
    this.tags.delete(name);
    if (deleted) this.log.push({ op: 'delete', name, atMs: Date.now() });
    return deleted;
  }
}

/**
 * ProvisionTarget for a dynamodb target: its table (created, adopted on a retry only when it carries the run's
 * tag, or an `existingTable` checked to exist), then the DAX cluster in front of it (it reaches the table through
 * the DAX role).
 */
import type { DynamoDbTarget } from '../../spec/schema';
import { ConflictError, StepFailedError, type TableDefinition, type Tags } from '../../common/ports';
import { ownedByRun } from '../../pipeline/ownership';
import { provisionDax } from './dax-lifecycle';
import { compositeKeyOf } from './key-design';
import { runTags, type RunContext } from '../../pipeline/run-context';
import { entryOf } from '../../resources/run-resource';
import { TABLE_ENTRY } from './entries';
import type { ProvisionContext, Provisioned } from '../kind';

export function tableDefinition(
  run: RunContext,
  target: DynamoDbTarget,
  name: string,
  userTags: Tags,
): TableDefinition {
  const composite = compositeKeyOf(target);
  return {
    name,
    keyAttribute: target.keyAttribute,
    ...(composite ? { sortKeyAttribute: composite.sortKeyAttribute } : {}),
    billing:
      target.billing.mode === 'provisioned'
        ? { mode: 'provisioned', rcu: target.billing.rcu, wcu: target.billing.wcu }
        : {
            mode: 'on-demand',
            ...(target.billing.maxReadRequestUnits
              ? { maxReadRequestUnits: target.billing.maxReadRequestUnits }
              : {}),
            ...(target.billing.maxWriteRequestUnits
              ? { maxWriteRequestUnits: target.billing.maxWriteRequestUnits }
              : {}),
          },
    tableClass: target.tableClass,
    ...(target.warmThroughput ? { warmThroughput: target.warmThroughput } : {}),
    tags: runTags(run, 'target', userTags),
  };
}

export async function provisionDynamoDb(t: DynamoDbTarget, ctx: ProvisionContext): Promise<Provisioned> {
  const { run, spec, ports } = ctx;
  const out: Provisioned = { created: [], existing: [] };
  const table = entryOf(run, TABLE_ENTRY, t.id);
  if (table && !table.owned) {
    const state = await ports.tables.describeTable(table.name);
    if (state.status === 'MISSING')
      throw new StepFailedError(
        'ProvisionTarget',
        `existingTable ${table.name} (target ${t.id}) does not exist`,
      );
    out.existing!.push(table.name);
  } else if (table) {
    try {
      await ports.tables.createTable(tableDefinition(run, t, table.name, spec.tags));
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      // a retry: the table is ours if it carries this run's tag
      if (!ownedByRun(await ports.tables.tableTags(table.name), run.runId))
        throw new StepFailedError(
          'ProvisionTarget',
          `table ${table.name} already exists and is not this run's`,
        );
    }
    out.created!.push(table.name);
  }
  const dax = await provisionDax(run, t, ctx.targetTags, ports.dax);
  if (dax) out.dax = [dax];
  return out;
}

/**
 * A dynamodb target in the steps after provisioning: WaitReady (its table ACTIVE, its DAX cluster available),
 * ConfigureCell (a provisioned table gets the capacity the spec gives it: it may have changed since, by a load
 * phase or by hand) and StartLoad/StartCell (the DAX endpoint, known once the cluster runs).
 */
import type { DynamoDbTarget } from '../../spec/schema';
import { StepFailedError, type DynamoDbAdmin } from '../../common/ports';
import { daxNotReady, daxEndpoint } from './dax-lifecycle';
import type { ReadyCheck, Runtime, StepContext } from '../kind';
import { entryOf } from '../../resources/run-resource';
import { TABLE_ENTRY } from './entries';

function tablesOf({ ports, step }: StepContext): DynamoDbAdmin {
  if (!ports.tables)
    throw new StepFailedError(step, 'the run has DynamoDB tables and no table port is configured');
  return ports.tables;
}

export async function dynamoDbReady(t: DynamoDbTarget, ctx: StepContext): Promise<ReadyCheck> {
  const { run, ports } = ctx;
  const problems: string[] = [];
  let tablesActive = 0;
  const table = entryOf(run, TABLE_ENTRY, t.id);
  if (table) {
    const s = await tablesOf(ctx).describeTable(table.name);
    if (s.status === 'ACTIVE') tablesActive++;
    else problems.push(`${table.name} is ${s.status}`);
  }
  problems.push(...(await daxNotReady(run, t.id, ports.dax)));
  return { problems, counts: { tablesActive } };
}

export async function configureDynamoDb(t: DynamoDbTarget, ctx: StepContext): Promise<boolean> {
  const table = entryOf(ctx.run, TABLE_ENTRY, t.id);
  if (!table) return false;
  const tables = tablesOf(ctx);
  const state = await tables.describeTable(table.name);
  if (state.status === 'MISSING' || state.status === 'DELETING')
    throw new StepFailedError('ConfigureCell', `table ${table.name} is ${state.status}`);
  if (t.billing.mode !== 'provisioned' || !table.owned) return false;
  const { rcu, wcu } = t.billing;
  if (state.rcu === rcu && state.wcu === wcu) return false;
  await tables.updateCapacity(table.name, { rcu, wcu });
  return true;
}

export async function dynamoDbRuntime(
  t: DynamoDbTarget,
  { run, ports, step }: StepContext,
): Promise<Runtime> {
  if (step !== 'StartLoad' && step !== 'StartCell') return {};
  return { properties: await daxEndpoint(run, t.id, step, ports.dax) };
}

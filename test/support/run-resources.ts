/** Test helpers over the run context's resource list (lib/core/resources/run-resource.ts). */
import type { RunContext } from '../../lib/core/pipeline/run-context';
import { entriesOf } from '../../lib/core/resources/run-resource';
import { TABLE_ENTRY } from '../../lib/core/targets/dynamodb/entries';
import { KEYSPACE_ENTRY } from '../../lib/core/targets/keyspaces/entries';

/** The name of the run's first DynamoDB table. */
export function tableOf(run: RunContext): string {
  return entriesOf(run, TABLE_ENTRY)[0]!.name;
}

/** The name of the run's first keyspace. */
export function keyspaceOf(run: RunContext): string {
  return entriesOf(run, KEYSPACE_ENTRY)[0]!.name;
}

/** The run with the first entry of a resource type given another name (a context forced onto another's resource). */
export function withRenamed(run: RunContext, type: string, name: string): RunContext {
  const i = run.resources.findIndex((r) => r.type === type);
  if (i < 0) throw new Error(`the run has no ${type}`);
  return { ...run, resources: run.resources.map((r, j) => (j === i ? { ...r, name } : r)) };
}

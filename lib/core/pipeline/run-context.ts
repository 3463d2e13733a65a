/**
 * The run context: the small JSON the state machine carries between steps (./context.ts has the store layout and
 * its readers), and the tags every resource of the run carries. A leaf module: the target kinds read it.
 */
import { TAG_EXPIRES_AT, TAG_ROLE, TAG_RUN_ID, TAG_SPEC, type Tags } from '../common/ports';
import type { RunDaxCluster, RunKeyspace } from './run-resources';

/** What Plan returns; every later step receives it as `run`. */
export interface RunContext {
  runId: string;
  specName: string;
  /** The results store's root URI (s3://bucket or file:///dir). */
  storeUri: string;
  startedAtMs: number;
  cellCount: number;
  /** Targets loaded before the cells (ids, in order); empty when there is no load phase. */
  loadTargets: string[];
  /** loadTargets.length (the state machine's Choice compares against it). */
  loadCount: number;
  loaders: number;
  instanceType: string;
  /** Tables per target; `owned` tables are created and deleted by the run. */
  tables: { target: string; name: string; owned: boolean }[];
  /** Node clusters the run launches (scylla-ec2, cassandra-ec2 targets); absent in contexts of older runs. */
  clusters?: { target: string; nodes: number; api: 'alternator' | 'cql'; table: string }[];
  /** Amazon Keyspaces keyspaces and tables the run creates (keyspaces targets; ./keyspaces.ts). */
  keyspaces?: RunKeyspace[];
  /** DAX clusters in front of dynamodb targets (lib/core/targets/dynamodb/dax-lifecycle.ts); absent when there are none. */
  dax?: RunDaxCluster[];
  /** Epoch seconds after which the janitor may remove anything of this run. */
  expiresAt: number;
  scheduleName?: string;
}

/** The tags every resource of the run carries (its id, spec, expiry and role), over the user's. */
export function runTags(run: RunContext, role: string, extra: Tags = {}): Tags {
  return {
    ...extra,
    [TAG_RUN_ID]: run.runId,
    [TAG_SPEC]: run.specName,
    [TAG_EXPIRES_AT]: String(run.expiresAt),
    [TAG_ROLE]: role,
  };
}

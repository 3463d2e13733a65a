/**
 * What Amazon Keyspaces targets need in the account: IAM only (Keyspaces is serverless; the loaders reach
 * cassandra.<region>.amazonaws.com:9142 over TLS with SigV4). The pipeline steps that create, wait for and
 * delete a run's keyspace get the Keyspaces control-plane actions on `fb_*` keyspaces (the names
 * lib/core/keyspaces.ts gives: `fb_<run>_<target>_<hash>`), and `KEYSPACES_ADMIN=true`, which makes
 * lambdas/shared/env.ts build the Keyspaces port for them. The loader role may read and write the tables of
 * `fb_*` keyspaces and read the system tables the Cassandra driver reads on connect.
 *
 * Sources, checked 2026-11-23:
 * - Service Authorization Reference for Keyspaces
 *   (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonkeyspacesforapachecassandra.html,
 *   operations table https://docs.aws.amazon.com/service-authorization/latest/reference/list_keyspaces.html):
 *   keyspace `arn:…:cassandra:<region>:<account>:/keyspace/<name>/`, table `…/keyspace/<name>/table/<table>`;
 *   CreateKeyspace and CreateTable authorize cassandra:Create and, with tags, cassandra:TagResource (both take
 *   aws:RequestTag/*); DeleteKeyspace authorizes cassandra:Drop; Select and Modify act on tables.
 * - The Keyspaces API reference for the reads: GetTable needs Select "for the table and the system keyspace"
 *   (https://docs.aws.amazon.com/keyspaces/latest/APIReference/API_GetTable.html), ListTagsForResource "for the
 *   specified resource and the system keyspace" (…/API_ListTagsForResource.html; the resource is the keyspace
 *   here, so Select is granted on fb_ keyspaces as well as their tables), ListTables "for the system keyspace"
 *   (…/API_ListTables.html; ListKeyspaces is read the same way).
 * - The system keyspace's resource is written as the developer guide writes it, `…/keyspace/system*`
 *   (https://docs.aws.amazon.com/keyspaces/latest/devguide/configure-udt-permissions.html): read-only, it covers
 *   system, system_schema, system_schema_mcs and their tables, which the Cassandra driver also reads on connect.
 *
 * Why the loader grant is the fb_ prefix and not "the run's keyspace only": the loader role is the stack's,
 * shared by every run, and carries no run identity IAM could compare with (an instance role's session has no
 * principal tags from the instance), so a per-run Resource or an aws:ResourceTag equality to the caller's run
 * cannot be written. A condition that the table merely carries a fleetbench run tag would add nothing the fb_
 * prefix does not, and no stored source confirms that Keyspaces evaluates aws:ResourceTag for CQL data-plane
 * calls: a wrong guess would deny every request of a real run. The creates are conditioned on the run tag in the
 * request (aws:RequestTag, documented for cassandra:Create and cassandra:TagResource), so every fb_ keyspace the
 * pipeline makes is tagged with its run and found by teardown and the janitor.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TAG_RUN_ID } from '../core/ports';
import { KEYSPACE_PREFIX } from '../core/keyspaces';

export interface KeyspacesAccessProps {
  /** The loaders' role (LoaderFleet): CQL reads and writes on runs' keyspaces. */
  readonly loaderRole: iam.IRole;
  /** The step functions that create, wait for and delete keyspaces. */
  readonly functions: Pick<
    TargetFunctions,
    'provisionTarget' | 'waitReady' | 'teardown' | 'onAbort' | 'janitor'
  >;
  /** ConfigureCell: gives a provisioned table the spec's capacity before each cell (GetTable, UpdateTable). */
  readonly configureCell?: lambda.Function;
}

export class KeyspacesAccess extends Construct {
  constructor(scope: Construct, id: string, props: KeyspacesAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const base = `arn:${stack.partition}:cassandra:${stack.region}:${stack.account}:/keyspace/`;
    const runKeyspaces = `${base}${KEYSPACE_PREFIX}*/`;
    const runTables = `${base}${KEYSPACE_PREFIX}*/table/*`;
    // the Keyspaces API's reads (GetTable, ListKeyspaces, ListTagsForResource) and the driver's metadata
    // queries (system.local, system.peers, system_schema*) read the system keyspaces
    const systemKeyspaces = `${base}system*`;
    const f = props.functions;
    const add = grant;

    for (const fn of Object.values(f)) fn.addEnvironment('KEYSPACES_ADMIN', 'true');
    // ProvisionTarget: the run's keyspace and table, created with the run tag
    add(
      f.provisionTarget,
      'CreateRunKeyspaces',
      ['cassandra:Create', 'cassandra:TagResource'],
      [runKeyspaces, runTables],
      { Null: { [`aws:RequestTag/${TAG_RUN_ID}`]: 'false' } },
    );
    // ProvisionTarget (a retry checks the keyspace's run tag), WaitReady (GetTable), Teardown and the janitor (list
    // by tag: ListTagsForResource on the keyspace)
    for (const fn of Object.values(f))
      add(fn, 'ReadRunKeyspaces', ['cassandra:Select'], [runKeyspaces, runTables, systemKeyspaces]);
    for (const fn of [f.teardown, f.onAbort, f.janitor])
      add(fn, 'DropRunKeyspaces', ['cassandra:Drop'], [runKeyspaces, runTables]);
    // ConfigureCell: GetTable, and UpdateTable (cassandra:Alter on the table) when the capacity has drifted
    const cc = props.configureCell;
    if (cc) {
      cc.addEnvironment('KEYSPACES_ADMIN', 'true');
      add(cc, 'ReadRunKeyspaces', ['cassandra:Select'], [runKeyspaces, runTables, systemKeyspaces]);
      add(cc, 'AlterRunTables', ['cassandra:Alter'], [runTables]);
    }

    // the loaders: YCSB's reads and writes on the run's table, and the driver's system tables
    props.loaderRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'KeyspacesRunTables',
        actions: ['cassandra:Select', 'cassandra:Modify'],
        resources: [runTables],
      }),
    );
    props.loaderRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'KeyspacesSystemTables',
        actions: ['cassandra:Select'],
        resources: [systemKeyspaces],
      }),
    );
  }
}

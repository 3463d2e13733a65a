/**
 * What Amazon Keyspaces targets need in the account: IAM only (Keyspaces is serverless; the loaders reach
 * cassandra.<region>.amazonaws.com:9142 over TLS with SigV4). The pipeline steps that create, wait for and
 * delete a run's keyspace get the Keyspaces control-plane actions on `fb_*` keyspaces (the names
 * lib/core/targets/keyspaces/keyspace.ts gives: `fb_<run>_<target>_<hash>`), and `KEYSPACES_ADMIN=true`, which makes
 * lambdas/shared/env.ts build the Keyspaces port for them. The loader role may read and write the tables of
 * `fb_*` keyspaces and read the system tables the Cassandra driver reads on connect.
 *
 * Why each grant is what it is (and why the loaders' grant is the fb_ prefix), with its sources: docs/iam.md,
 * "Amazon Keyspaces".
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TAG_RUN_ID } from '../core/common/ports';
import { KEYSPACE_PREFIX } from '../core/targets/keyspaces/keyspace';

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
    // Teardown, the abort rule and the janitor drop fb_ keyspaces that carry a run tag (every one is created with
    // it, above): the keyspace and table resources take aws:ResourceTag/<key> in the Service Authorization
    // Reference (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonkeyspacesforapachecassandra.html)
    for (const fn of [f.teardown, f.onAbort, f.janitor])
      add(fn, 'DropRunKeyspaces', ['cassandra:Drop'], [runKeyspaces, runTables], {
        Null: { [`aws:ResourceTag/${TAG_RUN_ID}`]: 'false' },
      });
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

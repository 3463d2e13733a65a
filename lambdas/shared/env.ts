/**
 * Typed configuration from the environment (read once, fails fast naming the variable) and the
 * adapters built from it. Clients are created lazily so a step only builds what it uses.
 */
import { AwsAccountQuotas } from '../../lib/aws/account-quotas';
import { DaxClusterAdmin } from '../../lib/aws/dax-admin';
import { DynamoDbTableAdmin } from '../../lib/aws/dynamodb-tables';
import { Ec2ClusterAdmin } from '../../lib/aws/ec2-cluster';
import { Ec2FleetAdmin } from '../../lib/aws/ec2-fleet';
import { KeyspacesApiAdmin } from '../../lib/aws/keyspaces-admin';
import * as KIND_ADAPTERS from '../../lib/aws/kind-adapters';
import type { EnvReader } from '../../lib/aws/env-reader';
import { EmfMetricsSink } from '../../lib/aws/emf-metrics';
import { CloudWatchTableMetrics } from '../../lib/aws/table-metrics';
import { S3Store } from '../../lib/aws/s3-store';
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import { SnsNotifier } from '../../lib/aws/sns-notifier';
import { SsmClusterProbe } from '../../lib/aws/ssm-cluster-probe';
import { SsmCommandRunner } from '../../lib/aws/ssm-commands';
import { systemClock, type KindServices, type Ports } from '../../lib/core/common/ports';

export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(`environment variable ${name} is not set (the stack sets it on every step function)`);
  return v;
}

/** The Lambda's environment as the kinds' adapter factories read it. */
const LAMBDA_ENV: EnvReader = { get: (name) => process.env[name] || undefined, require: requireEnv };

/** Each kind's AWS adapter factory (lib/aws/kind-adapters.ts): a kind that declares a service and has none fails here. */
const KIND_ADAPTER_FACTORIES: {
  [K in keyof KindServices]: (env: EnvReader) => KindServices[K] | undefined;
} = KIND_ADAPTERS;

/** The kinds' adapters, each built on first use (undefined where the stack set it none). */
function kindServicesFromEnv(): Partial<KindServices> {
  const services: Record<string, unknown> = {};
  const factories: Record<string, (env: EnvReader) => unknown> = KIND_ADAPTER_FACTORIES;
  for (const [kind, make] of Object.entries(factories)) {
    let built: { service: unknown } | undefined;
    Object.defineProperty(services, kind, {
      enumerable: true,
      get: () => (built ??= { service: make(LAMBDA_ENV) }).service,
    });
  }
  return services as Partial<KindServices>;
}

/** Adapters for the Lambda's environment. Each getter builds its adapter on first use. */
export function awsPorts(): Ports {
  const cache: Partial<Ports> = {};
  const once = <K extends keyof Ports>(k: K, make: () => Ports[K]): Ports[K] =>
    (cache[k] ??= make()) as Ports[K];
  const ports: Ports = {
    get store() {
      return once('store', () => new S3Store(`s3://${requireEnv('RESULTS_BUCKET')}`));
    },
    get tables() {
      return once('tables', () => new DynamoDbTableAdmin());
    },
    // Listing and terminating loaders need no launch template (the janitor has none); launching
    // without one fails naming the variable (Ec2FleetAdmin.launch).
    get fleet() {
      return once(
        'fleet',
        () =>
          new Ec2FleetAdmin({
            launchTemplateId: process.env.LAUNCH_TEMPLATE_ID ?? '',
            launchTemplateIdArm: process.env.LAUNCH_TEMPLATE_ID_ARM ?? '',
            subnetIds: (process.env.SUBNET_IDS ?? '').split(',').filter(Boolean),
          }),
      );
    },
    get commands() {
      return once(
        'commands',
        () => new SsmCommandRunner(requireEnv('LOADER_DOCUMENT'), {}, process.env.COMMAND_LOG_GROUP),
      );
    },
    get metrics() {
      return once('metrics', () => new EmfMetricsSink());
    },
    get notifier() {
      return once('notifier', () => new SnsNotifier(requireEnv('TOPIC_ARN')));
    },
    // No function has the state machine's ARN in its environment (it would be a dependency cycle in
    // the template): Plan builds its registry from the execution's context object (lambdas/plan.ts).
    get runs(): Ports['runs'] {
      throw new Error(
        "the run registry comes from the execution's context ($$.StateMachine.Id in the Task's parameters), not from the environment",
      );
    },
    // database nodes: only where the stack set the node launch template (DbNodes construct)
    get cluster() {
      if (!process.env.NODE_LAUNCH_TEMPLATE_ID) return undefined;
      return once(
        'cluster',
        () =>
          new Ec2ClusterAdmin({
            launchTemplateId: requireEnv('NODE_LAUNCH_TEMPLATE_ID'),
            subnetIds: requireEnv('NODE_SUBNET_IDS').split(',').filter(Boolean),
            // Cassandra nodes: only where the stack ships the Cassandra asset (DbNodes construct)
            ...(process.env.CASSANDRA_ASSET
              ? {
                  cassandra: {
                    asset: process.env.CASSANDRA_ASSET,
                    images: {
                      x86_64: requireEnv('CASSANDRA_AMI_X86_64'),
                      arm64: requireEnv('CASSANDRA_AMI_ARM64'),
                    },
                    instanceProfileArn: requireEnv('CASSANDRA_INSTANCE_PROFILE_ARN'),
                  },
                }
              : {}),
          }),
      );
    },
    get probe() {
      if (!process.env.PROBE_DOCUMENT) return undefined;
      return once(
        'probe',
        () =>
          new SsmClusterProbe({
            fleet: this.fleet,
            commands: this.commands,
            document: requireEnv('PROBE_DOCUMENT'),
          }),
      );
    },
    // Amazon Keyspaces: only on the functions the KeyspacesAccess construct grants (it sets KEYSPACES_ADMIN)
    get keyspaces() {
      if (process.env.KEYSPACES_ADMIN !== 'true') return undefined;
      return once('keyspaces', () => new KeyspacesApiAdmin());
    },
    // DAX clusters: only where the stack set the DAX service role (DaxAccess construct)
    get dax() {
      if (!process.env.DAX_ROLE_ARN) return undefined;
      return once(
        'dax',
        () =>
          new DaxClusterAdmin(
            {},
            {},
            {
              vpcId: requireEnv('DAX_VPC_ID'),
              subnetIds: requireEnv('DAX_SUBNET_IDS').split(',').filter(Boolean),
              loaderSecurityGroupId: requireEnv('DAX_LOADER_SECURITY_GROUP_ID'),
              iamRoleArn: requireEnv('DAX_ROLE_ARN'),
            },
          ),
      );
    },
    // the adapters of the kinds that bring a service of their own (lib/aws/kind-adapters.ts), each built on first use
    get kindServices() {
      return once('kindServices', kindServicesFromEnv);
    },
    // cassandra-ec2 logins (lib/core/targets/cassandra-ec2/cql-auth.ts): ProvisionTarget creates them, StartLoad/StartCell describe
    // them, Teardown (OnAbort, the janitor's second pass) deletes them; each role is granted only its calls
    get secrets() {
      return once('secrets', () => new SecretsManagerSecrets());
    },
    get quotas() {
      return once('quotas', () => new AwsAccountQuotas());
    },
    // AggregateCell: each DynamoDB cell's table metrics (cloudwatch:GetMetricData, granted in lib/constructs/benchmark-state-machine.ts)
    get tableMetrics() {
      return once('tableMetrics', () => new CloudWatchTableMetrics());
    },
    clock: systemClock,
  };
  // not enumerable: a step that spreads its ports (`{ ...deps }`) must not call the getter that throws
  Object.defineProperty(ports, 'runs', { enumerable: false });
  return ports;
}

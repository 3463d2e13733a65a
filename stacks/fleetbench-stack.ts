import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import {
  AbortRule,
  BenchmarkStateMachine,
  Janitor,
  PriceBookRefresh,
  LoaderFleet,
  Monitoring,
  Preflight,
  ResultsLake,
  Schedules,
  DbNodes,
  KeyspacesAccess,
  DaxAccess,
  DynamoDbAccess,
  addKindConstructs,
  type ScheduledSpec,
} from '../lib/constructs';
import type { NetworkMode } from '../lib/constructs/loader-fleet';
import { FLEETBENCH_VERSION } from '../lib/version';
import { applyNagSuppressions } from './nag-suppressions';

export interface FleetbenchStackProps extends StackProps {
  /** Use an existing VPC (looked up at synth) instead of creating one. */
  readonly vpcId?: string;
  /** The network the stack creates when no vpcId is given (see NetworkMode). @default 'public' */
  readonly network?: NetworkMode;
  /** Scheduled run specs (see readScheduledSpecs). @default none */
  readonly schedules?: ScheduledSpec[];
  /** Raw outputs expire after this many days. @default 365 */
  readonly rawExpireAfterDays?: number;
  /** @default Duration.days(8) */
  readonly runTimeout?: Duration;
  /** Paths of the loader bundle and agent (defaults: the build outputs under loader/). */
  readonly loaderBundleDir?: string;
  readonly loaderAgentFile?: string;
}

/** The fleetbench pipeline: composes the constructs, nothing else. */
export class FleetbenchStack extends Stack {
  readonly lake: ResultsLake;
  readonly fleet: LoaderFleet;
  readonly pipeline: BenchmarkStateMachine;
  readonly monitoring: Monitoring;
  readonly janitor: Janitor;
  readonly priceBooks: PriceBookRefresh;
  readonly abortRule: AbortRule;
  readonly schedules: Schedules;
  readonly dbNodes: DbNodes;
  readonly dax: DaxAccess;

  constructor(scope: Construct, id: string, props: FleetbenchStackProps = {}) {
    super(scope, id, props);
    this.lake = new ResultsLake(this, 'Results', { rawExpireAfterDays: props.rawExpireAfterDays });
    this.monitoring = new Monitoring(this, 'Monitoring', { resultsBucketName: this.lake.bucket.bucketName });
    this.fleet = new LoaderFleet(this, 'Loaders', {
      resultsBucket: this.lake.bucket,
      ...(props.vpcId ? { vpc: ec2.Vpc.fromLookup(this, 'Vpc', { vpcId: props.vpcId }) } : {}),
      ...(props.network ? { network: props.network } : {}),
      bundleDir: props.loaderBundleDir,
      agentFile: props.loaderAgentFile,
    });
    this.pipeline = new BenchmarkStateMachine(this, 'Pipeline', {
      resultsBucket: this.lake.bucket,
      fleet: this.fleet,
      topic: this.monitoring.topic,
      timeout: props.runTimeout,
    });
    new DynamoDbAccess(this, 'DynamoDb', {
      functions: { ...this.pipeline.functions, onAbort: this.pipeline.onAbortFunction },
      configureCell: this.pipeline.functions.configureCell,
    });
    this.abortRule = new AbortRule(this, 'AbortRule', {
      stateMachine: this.pipeline.stateMachine,
      handler: this.pipeline.onAbortFunction,
      topic: this.monitoring.topic,
    });
    this.janitor = new Janitor(this, 'Janitor', {
      topic: this.monitoring.topic,
      resultsBucket: this.lake.bucket,
    });
    // the stack's region's price book, refreshed monthly and on deploy (Plan uses the newest)
    this.priceBooks = new PriceBookRefresh(this, 'PriceBooks', { resultsBucket: this.lake.bucket });
    // the functions that provision, wait for, configure and remove targets: each target's construct grants
    // the ones it needs
    const targetFunctions = {
      provisionTarget: this.pipeline.functions.provisionTarget,
      waitReady: this.pipeline.functions.waitReady,
      startLoad: this.pipeline.functions.startLoad,
      startCell: this.pipeline.functions.startCell,
      teardown: this.pipeline.functions.teardown,
      onAbort: this.pipeline.onAbortFunction,
      janitor: this.janitor.fn,
    };
    this.dbNodes = new DbNodes(this, 'DbNodes', { fleet: this.fleet, functions: targetFunctions });
    new KeyspacesAccess(this, 'Keyspaces', {
      loaderRole: this.fleet.role,
      functions: targetFunctions,
      configureCell: this.pipeline.functions.configureCell,
    });
    // Plan: a resume checks that the failed execution's clusters are gone (lib/core/pipeline/resume.ts)
    const plan = this.pipeline.functions.plan;
    this.dax = new DaxAccess(this, 'Dax', { fleet: this.fleet, functions: targetFunctions, plan });
    addKindConstructs(this, { fleet: this.fleet, functions: targetFunctions, plan });
    new Preflight(this, 'Preflight', {
      plan: this.pipeline.functions.plan,
      availabilityZones: this.fleet.availabilityZoneCount,
      network: this.fleet.network,
    });
    this.schedules = new Schedules(this, 'Schedules', {
      stateMachine: this.pipeline.stateMachine,
      specs: props.schedules ?? [],
    });

    new CfnOutput(this, 'StateMachineArn', { value: this.pipeline.stateMachine.stateMachineArn });
    new CfnOutput(this, 'ResultsBucket', { value: this.lake.bucket.bucketName });
    new CfnOutput(this, 'GlueDatabase', { value: this.lake.databaseName });
    new CfnOutput(this, 'AthenaWorkGroup', { value: this.lake.workGroupName });
    new CfnOutput(this, 'TopicArn', { value: this.monitoring.topic.topicArn });
    // `fleetbench doctor` and `start` compare these with the CLI's version and the spec
    new CfnOutput(this, 'Version', { value: FLEETBENCH_VERSION });
    new CfnOutput(this, 'Network', { value: this.fleet.network });
    new CfnOutput(this, 'LoaderAssets', {
      value: this.toJsonString([this.fleet.bundleAsset.s3ObjectUrl, this.fleet.agentAsset.s3ObjectUrl]),
    });
    new CfnOutput(this, 'LoaderSubnetAzs', { value: String(this.fleet.availabilityZoneCount) });
    applyNagSuppressions(this);
  }
}

/**
 * What the Plan step needs to check a run against the account before anything is provisioned
 * (lib/core/pipeline/preflight.ts): read access to Service Quotas, DynamoDB's limits and the region's AZs, and
 * how many AZs the stack's subnets span.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface PreflightProps {
  /** The Plan step's function. */
  readonly plan: lambda.Function;
  /** AZs of the loader/node subnets (LoaderFleet.availabilityZoneCount). */
  readonly availabilityZones: number;
  /** The loaders' network (LoaderFleet.network): Plan refuses targets the private network cannot reach. */
  readonly network: 'public' | 'private' | 'existing';
}

export const PREFLIGHT_ACTIONS = [
  'servicequotas:GetServiceQuota',
  'servicequotas:GetAWSDefaultServiceQuota',
  'dynamodb:DescribeLimits',
  'ec2:DescribeAvailabilityZones',
] as const;

export class Preflight extends Construct {
  constructor(scope: Construct, id: string, props: PreflightProps) {
    super(scope, id);
    props.plan.addEnvironment('LOADER_AZ_COUNT', String(props.availabilityZones));
    props.plan.addEnvironment('LOADER_NETWORK', props.network);
    // none of these reads supports resource-level permissions
    props.plan.addToRolePolicy(
      new iam.PolicyStatement({ sid: 'PreflightReads', actions: [...PREFLIGHT_ACTIONS], resources: ['*'] }),
    );
  }
}

import { Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { nagAcknowledgementsOf, type NagAcknowledgement } from '../lib/constructs/nag-acknowledgements';

/**
 * The cdk-nag AwsSolutions findings we accept. Each entry matches finding ids (cdk-nag v3 reports
 * granular ids such as `AwsSolutions-IAM5[Resource::...]`) and carries the reason; a finding no
 * entry matches stays an error and fails synth. `network: 'private'`: findings of the private network
 * mode only. A kind's construct adds the findings of its own grants (lib/constructs/nag-acknowledgements.ts); a
 * finding both lists match carries the reasons of both.
 */
export const NAG_ACKNOWLEDGEMENTS: NagAcknowledgement[] = [
  {
    pattern:
      /^AwsSolutions-IAM4\[Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole\]$/,
    reason:
      'CDK attaches the AWS-managed basic execution role to Lambda functions; it only allows writing their own logs.',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[(Action::s3:(List|GetObject|GetBucket|Abort|DeleteObject)\*|Resource::<ResultsBucket[0-9A-F]+\.Arn>\/(runs|specs|tables|tables\/changes|tables\/cells|tables\/frontier|tables\/runs|noise|bindings|prices)?\/?\*)\]$/,
    reason:
      "CDK bucket grants: object actions under the runs/, specs/ (Plan reads a specKey start), tables/ (CellFailed: tables/cells/ and tables/frontier/ only, a failed cell's row and the frontier row of an SLO search that ends on a failed probe; Teardown and OnAbort: tables/runs/ only, a failed or aborted run's row) and noise/ prefixes of the results bucket (listing needs the bucket), the loaders' and Plan's read of users' binding jars under bindings/ (Plan records each jar's SHA-256), and the price books under prices/ (the scheduled refresh writes them, Plan reads them).",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:cassandra:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):\/keyspace\/(fb_\*\/(table\/\*)?|system\*)\]$/,
    reason:
      "Amazon Keyspaces: runs' keyspaces are named fb_<run>_<target>_<hash> and created at run time (the creates require the run tag in the request); the loader role is shared by runs and carries no run identity, so its CQL grant covers the fb_ prefix. system* (the system keyspaces, written as the Keyspaces developer guide writes them) is read-only (cassandra:Select): the driver's system.local/system.peers/system_schema reads and the Keyspaces API's reads, which the API reference says need Select on the system keyspace (lib/constructs/keyspaces-access.ts).",
  },
  {
    pattern: /^AwsSolutions-IAM5\[Action::kms:GenerateDataKey\*\]$/,
    reason:
      "CDK's SNS publish grant on the run-events topic's own customer managed key: SNS server-side encryption needs a data key (the grant is on that key only).",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::<ResultsBucket[0-9A-F]+\.Arn>\/runs\/\*\/(jobs\/\*|raw\/loader-\*)\]$/,
    reason:
      "The loader role is shared by every run (an instance profile carries no run identity), so it cannot name one run's keys: it reads job files (runs/*/jobs/*) and writes raw outputs (runs/*/raw/loader-*) only, never a job, plan, spec or result; the bucket is versioned, so an overwritten output can be restored.",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:dynamodb:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):table\/fleetbench-\*\]$/,
    reason:
      'Tables created by runs are named fleetbench-<spec>.<target>.<run>; the grant is limited to that prefix.',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:dynamodb:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):table\/\*\]$/,
    reason:
      'DescribeTable only: a spec may name an existingTable that is not a fleetbench-* table; it is described, never changed.',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:ec2:[a-z0-9-]*:(?:<AWS::AccountId>|\d{12})?:(instance|volume|subnet|network-interface|image)\/\*\]$/,
    reason:
      "RunInstances needs the instance, volume, subnet, network-interface and image resources, whose ids are not known before launch; TerminateInstances and SendCommand are conditioned on the fleetbench:role=loader tag. DAX CreateCluster lists ec2:CreateNetworkInterface/DeleteNetworkInterface as dependent actions (Service Authorization Reference): the interfaces DAX makes have no id before the call; deletion is conditioned on the loaders' VPC (ec2:Vpc).",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:states:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):execution:[A-Za-z0-9-]+-benchmark:\*\]$/,
    reason: "Plan describes this state machine's running executions to refuse overlapping scheduled runs.",
  },
  {
    pattern: /^AwsSolutions-IAM5\[Resource::<Pipeline[A-Za-z]+Fn[0-9A-F]+\.Arn>:\*\]$/,
    reason:
      'The state machine invokes every version/alias of its own step functions (CDK LambdaInvoke grant).',
  },
  {
    pattern: /^AwsSolutions-IAM5\[Resource::<LoadersCommandLogs[0-9A-F]+\.Arn>:log-stream:\*\]$/,
    reason: 'Loaders write Run Command output to log streams of their own log group.',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:secretsmanager:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):secret:fleetbench\/\*\]$/,
    reason:
      "Loaders read an external target's credentials from the secret its spec names (Plan refuses names outside fleetbench/). The loader role is shared by every run and is fixed at deploy time, while the secrets are named per spec at run time, so the grant cannot be narrowed to one run's secrets without a role per run: a custom binding on a loader could read other fleetbench/ secrets (docs/aws-pipeline.md, Loaders and custom bindings). The step functions' cassandra-ec2 login secrets are named fleetbench/<run>/<target>-cql at run time: ProvisionTarget may create and tag them only with the fleetbench:run-id tag in the request, StartLoad, StartCell, Teardown, OnAbort and the janitor only describe them (no step reads a CQL login's value), and DeleteSecret (Teardown, OnAbort, the janitor) applies only to secrets carrying a fleetbench:run-id tag (aws:ResourceTag), the code deleting only its own run's.",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:logs:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):log-group:\*\]$/,
    reason:
      "The loaders' SSM agent calls logs:DescribeLogGroups before it streams Run Command output to CloudWatch Logs; the action is authorized on log-group:* of the account only (writes stay on the command log group).",
  },
  {
    pattern: /^AwsSolutions-IAM5\[Resource::\*\]$/,
    reason:
      'Actions without resource-level permissions: ec2:DescribeInstances, ssm:DescribeInstanceInformation, ssm:ListCommandInvocations and ssm:CancelCommand (no resource type and no condition key in the Service Authorization Reference), dynamodb:ListTables, X-Ray and log delivery for the state machine, the SSM agent channels, cloudwatch:PutMetricData (conditioned on the Fleetbench namespace), and the preflight of the Plan step reads (servicequotas:GetServiceQuota/GetAWSDefaultServiceQuota, dynamodb:DescribeLimits, ec2:DescribeAvailabilityZones); DAX subnet and parameter group actions (no resource type in the Service Authorization Reference), dax:DescribeClusters without cluster names (a List action: teardown and the janitor find the clusters of a run by tag) and the EC2 Describe calls DAX needs (security groups, subnets, VPCs, network interfaces); pricing:GetProducts of the price-book refresh (the Price List Query API has no resource types); secretsmanager:ListSecrets for the janitor, which lists fleetbench/ secrets to delete expired cassandra-ec2 logins (ListSecrets supports only "*" in the Service Authorization Reference; it returns names and tags, never values, and DeleteSecret stays limited to fleetbench/* secrets carrying a run tag).',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:dax:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):cache\/fb-\*\]$/,
    reason:
      'DAX clusters are created per run and named fb-<8 hex> (lib/core/targets/dynamodb/dax.ts daxResourceName); the grants (cluster actions for the steps, item actions for the loaders) are limited to that prefix.',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:ec2:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):security-group\/\*\]$/,
    reason:
      "A run's DAX security group does not exist before the run creates it: creating requires the fleetbench:run-id request tag, tagging only at creation, rule changes and deletion only on groups carrying the run tag; DAX's network interfaces (CreateCluster's dependent ec2:CreateNetworkInterface) may use groups of the loaders' VPC only (ec2:Vpc).",
  },
  {
    pattern: /^AwsSolutions-EC23$/,
    reason:
      "The VPC interface endpoints' security groups allow HTTPS from the VPC's own CIDR (a token cdk-nag cannot resolve); loaders have no inbound rule.",
    // interface endpoints exist in the private network mode only (test/infra/network-idle.test.ts)
    network: 'private',
  },
  {
    pattern: /^AwsSolutions-S1$/,
    reason:
      'The results bucket holds benchmark outputs only; server access logs would cost more than the data is worth (CloudTrail data events can be enabled by the account owner).',
  },
  {
    pattern: /^AwsSolutions-L1$/,
    reason:
      'Node.js 22 is the newest runtime the pinned aws-cdk-lib offers with offline esbuild bundling here.',
  },
  {
    pattern: /^AwsSolutions-SQS3$/,
    reason:
      "The failed-teardowns queue is itself the dead-letter queue (OnAbort's on-failure destination and its rule target's DLQ, lib/constructs/abort-rule.ts); nothing consumes it, a message there raises an alarm.",
  },
];

/** Acknowledges the stack's accepted findings; returns the ids left unacknowledged (errors). */
export function applyNagSuppressions(stack: Stack): string[] {
  const report = new AwsSolutionsChecks().validateScope(stack);
  const left: string[] = [];
  const acks = [...NAG_ACKNOWLEDGEMENTS, ...nagAcknowledgementsOf(stack)];
  for (const v of report.violations) {
    const reasons = acks.filter((a) => a.pattern.test(v.ruleName)).map((a) => a.reason);
    if (reasons.length)
      Validations.of(stack).acknowledge({ id: `AwsSolutions::${v.ruleName}`, reason: reasons.join(' ') });
    else left.push(v.ruleName);
  }
  return left;
}

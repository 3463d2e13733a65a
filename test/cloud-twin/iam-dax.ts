/**
 * What IAM evaluates for the DAX control-plane calls (lib/aws/dax-admin.ts) and the EC2 security-group calls
 * around them, from the Service Authorization Reference for DAX
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodbacceleratordax.html):
 * cluster actions on the `application` resource `arn:aws:dax:<region>:<account>:cache/<ClusterName>`
 * (DescribeClusters' resource is optional: without names it is evaluated on "*" here); the subnet and
 * parameter group actions have no resource type ("*"); CreateCluster also authorizes dax:TagResource (tags in the
 * request) and iam:PassRole on the role it names, with iam:PassedToService = dax.amazonaws.com. For EC2
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html): CreateSecurityGroup
 * on the VPC and on the new security-group/* with the request tags, and ec2:CreateTags with ec2:CreateAction on
 * tag-on-create; the group rules and deletion on the group's ARN with its tags as aws:ResourceTag/*.
 */
import type { ApiRequest, IamCheck, Mapped } from './iam-request';
import { ACCOUNT, REGION } from './template';

const cache = (name: string) => `arn:aws:dax:${REGION}:${ACCOUNT}:cache/${name}`;
const sgArn = (id: string) => `arn:aws:ec2:${REGION}:${ACCOUNT}:security-group/${id}`;

/** Tags of EC2 security groups (the twin asks moto). */
export type SecurityGroupTags = (ids: string[]) => Promise<Record<string, Record<string, string>>>;

/** A DAX API request (JSON, X-Amz-Target AmazonDAXV3.<Operation>), or null when it is not one. */
export function mapDax(req: ApiRequest): Mapped | null {
  if (req.service !== 'dax') return null;
  const op = String(req.headers['x-amz-target'] ?? '')
    .split('.')
    .pop()!;
  const p = (req.body.length ? JSON.parse(req.body.toString('utf8')) : {}) as Record<string, unknown>;
  const action = `dax:${op}`;
  const on = (...resources: string[]): Mapped => ({
    operation: action,
    checks: resources.map((resource) => ({ action, resource, context: {} })),
    params: p,
  });
  switch (op) {
    case 'CreateCluster': {
      const name = String(p.ClusterName);
      const checks: IamCheck[] = [{ action, resource: cache(name), context: {} }];
      if (Array.isArray(p.Tags) && p.Tags.length)
        checks.push({ action: 'dax:TagResource', resource: cache(name), context: {} });
      checks.push({
        action: 'iam:PassRole',
        resource: String(p.IamRoleArn),
        context: { 'iam:PassedToService': 'dax.amazonaws.com' },
      });
      return { operation: action, checks, params: p };
    }
    case 'DescribeClusters': {
      const names = (p.ClusterNames ?? []) as string[];
      return names.length ? on(...names.map(cache)) : on('*');
    }
    case 'DeleteCluster':
      return on(cache(String(p.ClusterName)));
    case 'ListTags':
    case 'TagResource':
      // moto's ARNs name its own account: the cluster's ARN in the twin's account
      return on(cache(String(p.ResourceName).split('/').pop()!));
    case 'CreateSubnetGroup':
    case 'DeleteSubnetGroup':
    case 'DescribeSubnetGroups':
    case 'CreateParameterGroup':
    case 'UpdateParameterGroup':
    case 'DeleteParameterGroup':
    case 'DescribeParameterGroups':
    case 'DescribeParameters':
      return on('*');
    default:
      return null;
  }
}

/** The EC2 calls of a DAX cluster's security group, or null for other EC2 operations. */
export async function mapDaxEc2(
  op: string,
  form: URLSearchParams,
  params: Record<string, unknown>,
  securityGroupTags: SecurityGroupTags | undefined,
): Promise<Mapped | null> {
  const action = `ec2:${op}`;
  if (['DescribeSecurityGroups', 'DescribeVpcs', 'DescribeNetworkInterfaces'].includes(op))
    return { operation: action, checks: [{ action, resource: '*', context: {} }], params };
  if (op === 'CreateSecurityGroup') {
    const requestTags: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = /^TagSpecification\.(\d+)\.Tag\.(\d+)\.Key$/.exec(k);
      if (m)
        requestTags[`aws:RequestTag/${v}`] = form.get(`TagSpecification.${m[1]}.Tag.${m[2]}.Value`) ?? '';
    }
    const checks: IamCheck[] = [
      { action, resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:vpc/${form.get('VpcId')}`, context: {} },
      { action, resource: sgArn('*'), context: requestTags },
    ];
    if (Object.keys(requestTags).length)
      checks.push({
        action: 'ec2:CreateTags',
        resource: sgArn('*'),
        context: { ...requestTags, 'ec2:CreateAction': 'CreateSecurityGroup' },
      });
    return { operation: action, checks, params };
  }
  if (['AuthorizeSecurityGroupIngress', 'RevokeSecurityGroupEgress', 'DeleteSecurityGroup'].includes(op)) {
    const id = String(form.get('GroupId'));
    const tags = (await securityGroupTags?.([id]))?.[id] ?? {};
    const context: Record<string, string> = {};
    for (const [k, v] of Object.entries(tags)) {
      context[`aws:ResourceTag/${k}`] = v;
      context[`ec2:ResourceTag/${k}`] = v;
    }
    return { operation: action, checks: [{ action, resource: sgArn(id), context }], params };
  }
  return null;
}

/** What the run gives DAX for one cluster: its service role, and the loaders' VPC, subnets and the run's group. */
export interface DaxClusterNetwork {
  roleArn: string;
  vpcId: string;
  subnetIds: string[];
  securityGroupIds: string[];
}

/**
 * The dependent actions of dax:CreateCluster (the Service Authorization Reference's "Dependent actions" column:
 * dax:CreateParameterGroup, dax:CreateSubnetGroup, ec2:CreateNetworkInterface, ec2:DeleteNetworkInterface,
 * ec2:DescribeNetworkInterfaces, ec2:DescribeSecurityGroups, ec2:DescribeSubnets, ec2:DescribeVpcs, iam:GetRole,
 * iam:PassRole) as IAM would check them for one cluster: the network interfaces in the subnet group's subnets with
 * the cluster's security groups, all in the loaders' VPC (ec2:Vpc). The gateway's table above does not add them (a
 * CreateCluster request names its subnet group, not the subnets); the policy test evaluates them.
 */
export function createClusterDependents(n: DaxClusterNetwork): IamCheck[] {
  const inVpc = { 'ec2:Vpc': `arn:aws:ec2:${REGION}:${ACCOUNT}:vpc/${n.vpcId}` };
  const eni = `arn:aws:ec2:${REGION}:${ACCOUNT}:network-interface/eni-0dax`;
  const star = (action: string): IamCheck => ({ action, resource: '*', context: {} });
  return [
    star('dax:CreateParameterGroup'),
    star('dax:CreateSubnetGroup'),
    star('ec2:DescribeNetworkInterfaces'),
    star('ec2:DescribeSecurityGroups'),
    star('ec2:DescribeSubnets'),
    star('ec2:DescribeVpcs'),
    { action: 'iam:GetRole', resource: n.roleArn, context: {} },
    { action: 'iam:PassRole', resource: n.roleArn, context: { 'iam:PassedToService': 'dax.amazonaws.com' } },
    { action: 'ec2:CreateNetworkInterface', resource: eni, context: {} },
    ...n.subnetIds.map((id) => ({
      action: 'ec2:CreateNetworkInterface',
      resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:subnet/${id}`,
      context: inVpc,
    })),
    ...n.securityGroupIds.map((id) => ({
      action: 'ec2:CreateNetworkInterface',
      resource: sgArn(id),
      context: inVpc,
    })),
    { action: 'ec2:DeleteNetworkInterface', resource: eni, context: inVpc },
  ];
}

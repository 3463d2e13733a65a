/**
 * What IAM evaluates for one AWS API request: the action(s), resource ARN(s) and the condition keys
 * the stack's policies use, for the operations this project calls (an operation not in the table is
 * refused: no silent pass). Decisions come from @cloud-copilot/iam-simulate over the role's policies.
 *
 * Sources: the Service Authorization Reference (https://docs.aws.amazon.com/service-authorization/latest/reference/)
 * for each action's resource types and condition keys; RunInstances' resources and tag-on-create
 * (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/supported-iam-actions-tagging.html).
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, REGION } from './template';
import { mapKeyspaces } from './keyspaces-iam';
import { mapDax, mapDaxEc2, type SecurityGroupTags } from './iam-dax';
import type { ApiRequest, IamCheck, Mapped, ResourceTags } from './iam-request';
import { mapMemoryDb } from './iam-memorydb';

export type { ApiRequest, IamCheck, Mapped, ResourceTags };

export class UnmappedOperation extends Error {}

/** An SNS topic's KMS key: its ARN and key policy. */
export interface TopicKey {
  arn: string;
  policy: unknown;
}

/** Tags of EC2 instances (the twin asks moto) for aws:ResourceTag / ssm:resourceTag conditions. */
export type InstanceTags = (ids: string[]) => Promise<Record<string, Record<string, string>>>;

const arn = (service: string, resource: string, region = REGION, account = ACCOUNT) =>
  `arn:aws:${service}:${region}:${account}:${resource}`;

const JSON_PREFIX: Record<string, string> = {
  dynamodb: 'dynamodb',
  ssm: 'ssm',
  monitoring: 'cloudwatch',
  states: 'states',
  logs: 'logs',
  secretsmanager: 'secretsmanager',
  servicequotas: 'servicequotas',
  pricing: 'pricing',
};

/** Instance-scoped checks with the instance's tags as aws:ResourceTag/* (and `ssm:resourceTag/*` for SSM). */
async function instanceChecks(action: string, ids: string[], tags: InstanceTags): Promise<IamCheck[]> {
  const all = await tags(ids);
  return ids.map((id) => {
    const t = all[id] ?? {};
    const context: Record<string, string> = {};
    for (const [k, v] of Object.entries(t)) {
      context[`aws:ResourceTag/${k}`] = v;
      if (action.startsWith('ssm:')) context[`ssm:resourceTag/${k}`] = v;
      else context[`ec2:ResourceTag/${k}`] = v;
    }
    return { action, resource: arn('ec2', `instance/${id}`), context };
  });
}

function queryList(params: URLSearchParams, prefix: string): string[] {
  const out: string[] = [];
  for (const [k, v] of params) if (new RegExp(`^${prefix.replace('.', '\\.')}\\.\\d+$`).test(k)) out.push(v);
  return out;
}

export async function mapRequest(
  req: ApiRequest,
  lookups: {
    instanceTags: InstanceTags;
    launchTemplateRole: (ltId: string) => string | undefined;
    instanceProfileRole?: (profileArn: string) => string | undefined;
    securityGroupTags?: SecurityGroupTags;
    /** The KMS key (ARN, key policy) of an encrypted SNS topic (undefined: not encrypted). */
    topicKey?: (topicArn: string) => TopicKey | undefined;
    /** A secret's tags (by name or ARN; empty when it does not exist) for DeleteSecret's and GetSecretValue's conditions. */
    secretTags?: (id: string) => Promise<Record<string, string>>;
    /** MemoryDB and Keyspaces resources' tags (their deletes' aws:ResourceTag conditions). */
    resourceTags?: ResourceTags;
  },
): Promise<Mapped> {
  if (req.service === 's3') return mapS3(req);
  if (req.service === 'cassandra') {
    const ks = mapKeyspaces(req, lookups.resourceTags);
    if (ks) return ks;
    throw new UnmappedOperation(
      `cassandra ${String(req.headers['x-amz-target'])} is not in the twin's IAM table`,
    );
  }
  const dax = mapDax(req);
  if (dax) return dax;
  const memorydb = mapMemoryDb(req, lookups.resourceTags);
  if (memorydb) return memorydb;
  const target = String(req.headers['x-amz-target'] ?? '');
  if (JSON_PREFIX[req.service] && target) {
    const op = target.split('.').pop()!;
    const prefix = JSON_PREFIX[req.service]!;
    const p = (req.body.length ? JSON.parse(req.body.toString('utf8')) : {}) as Record<string, unknown>;
    const action = `${prefix}:${op}`;
    const one = (resource: string, context: Record<string, string | string[]> = {}): Mapped => ({
      operation: action,
      checks: [{ action, resource, context }],
      params: p,
    });
    if (prefix === 'dynamodb') {
      if (op === 'ListTables' || op === 'DescribeLimits') return one('*');
      // DynamoDB Local's ARNs name its own region/account (ddblocal:000000000000): the table's ARN here
      if (op === 'TagResource' || op === 'ListTagsOfResource')
        return one(arn('dynamodb', `table/${String(p.ResourceArn).split('/').pop()}`));
      if (op === 'BatchWriteItem' || op === 'BatchGetItem') {
        const tables = Object.keys((p.RequestItems ?? {}) as object);
        return {
          operation: action,
          checks: tables.map((t) => ({ action, resource: arn('dynamodb', `table/${t}`), context: {} })),
          params: p,
        };
      }
      if (typeof p.TableName === 'string') return one(arn('dynamodb', `table/${p.TableName}`));
    }
    if (prefix === 'ssm') {
      if (op === 'SendCommand') {
        const doc = String(p.DocumentName);
        const ids = (p.InstanceIds ?? []) as string[];
        return {
          operation: action,
          checks: [
            // AWS-owned documents (AWS-RunShellScript) have no account in their ARN
            {
              action,
              resource: doc.startsWith('AWS-')
                ? `arn:aws:ssm:${REGION}::document/${doc}`
                : arn('ssm', `document/${doc}`),
              context: {},
            },
            ...(await instanceChecks(action, ids, lookups.instanceTags)),
          ],
          params: p,
        };
      }
      if (
        [
          'DescribeInstanceInformation',
          'ListCommandInvocations',
          'GetCommandInvocation',
          'CancelCommand',
        ].includes(op)
      )
        return one('*');
    }
    if (prefix === 'cloudwatch' && op === 'PutMetricData')
      return one('*', { 'cloudwatch:namespace': String(p.Namespace) });
    // GetMetricData has no resource type: authorized on "*" only
    // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html)
    if (prefix === 'cloudwatch' && op === 'GetMetricData') return one('*');
    if (prefix === 'states') {
      if (op === 'ListExecutions' || op === 'StartExecution') return one(String(p.stateMachineArn));
      if (op === 'DescribeExecution' || op === 'GetExecutionHistory') return one(String(p.executionArn));
    }
    if (prefix === 'secretsmanager') {
      // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html)
      const secret = (id: string) => (id.startsWith('arn:') ? id : arn('secretsmanager', `secret:${id}`));
      if (op === 'DescribeSecret') return one(secret(String(p.SecretId)));
      if (op === 'GetSecretValue') {
        // the secret's tags as aws:ResourceTag/<key>, which GetSecretValue supports (ProvisionTarget's read-back
        // of a MemoryDB login is conditioned on the run tag)
        const id = String(p.SecretId);
        const context: Record<string, string> = {};
        for (const [k, v] of Object.entries((await lookups.secretTags?.(id)) ?? {}))
          context[`aws:ResourceTag/${k}`] = v;
        return one(secret(id), context);
      }
      // (a List action without a resource type: authorized on "*" only)
      if (op === 'ListSecrets') return one('*');
      if (op === 'CreateSecret') {
        // CreateSecret with tags needs TagResource too; both see the request's tags
        const tags = (p.Tags ?? []) as { Key: string; Value: string }[];
        const context: Record<string, string | string[]> = {};
        for (const t of tags) context[`aws:RequestTag/${t.Key}`] = t.Value;
        if (tags.length) context['aws:TagKeys'] = tags.map((t) => t.Key);
        const resource = secret(String(p.Name));
        return {
          operation: action,
          checks: [
            { action, resource, context },
            ...(tags.length ? [{ action: 'secretsmanager:TagResource', resource, context }] : []),
          ],
          params: p,
        };
      }
      if (op === 'DeleteSecret') {
        const id = String(p.SecretId);
        const context: Record<string, string> = {};
        // (the stack's condition is the global aws:ResourceTag, which DeleteSecret supports as well)
        for (const [k, v] of Object.entries((await lookups.secretTags?.(id)) ?? {}))
          context[`aws:ResourceTag/${k}`] = v;
        return one(secret(id), context);
      }
    }
    // preflight quota checks (https://docs.aws.amazon.com/service-authorization/latest/reference/list_servicequotas.html)
    if (prefix === 'servicequotas') {
      if (op === 'GetServiceQuota')
        return one(arn('servicequotas', `${String(p.ServiceCode)}/${String(p.QuotaCode)}`));
      // the default-quota and list actions have no resource type: they are authorized on "*"
      if (
        op === 'GetAWSDefaultServiceQuota' ||
        op === 'ListServiceQuotas' ||
        op === 'ListAWSDefaultServiceQuotas'
      )
        return one('*');
    }
    // the Price List Query API: no resource types (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awspricelist.html)
    if (prefix === 'pricing' && op === 'GetProducts') return one('*');
    if (prefix === 'logs') {
      const group = arn('logs', `log-group:${String(p.logGroupName)}`);
      if (op === 'CreateLogStream' || op === 'PutLogEvents')
        return one(`${group}:log-stream:${String(p.logStreamName)}`);
      if (op === 'DescribeLogStreams') return one(`${group}:log-stream:*`);
      if (op === 'DescribeLogGroups') return one(arn('logs', 'log-group:*'));
    }
    throw new UnmappedOperation(`${action} is not in the twin's IAM table`);
  }
  if (req.service === 'ec2' || req.service === 'sns') {
    const form = new URLSearchParams(req.body.toString('utf8'));
    for (const [k, v] of req.query) if (!form.has(k)) form.set(k, v);
    const op = form.get('Action') ?? '';
    const params = Object.fromEntries(form);
    const action = `${req.service}:${op}`;
    if (req.service === 'sns' && op === 'Publish') {
      // a topic with server-side encryption: SNS generates and uses a data key of the topic's KMS key as
      // the publisher (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html)
      const topic = String(form.get('TopicArn'));
      // (KMS evaluates the key policy with the caller's identity policies)
      const key = lookups.topicKey?.(topic);
      return {
        operation: action,
        checks: [
          { action, resource: topic, context: {} },
          ...(key
            ? ['kms:GenerateDataKey', 'kms:Decrypt'].map((a) => ({
                action: a,
                resource: key.arn,
                context: { 'kms:ViaService': `sns.${REGION}.amazonaws.com` },
                resourcePolicy: key.policy,
              }))
            : []),
        ],
        params,
      };
    }
    if (req.service === 'ec2') {
      if (
        [
          'DescribeInstances',
          'DescribeImages',
          'DescribeSubnets',
          'DescribeAvailabilityZones',
          'DescribeInstanceTypes',
        ].includes(op)
      )
        return { operation: action, checks: [{ action, resource: '*', context: {} }], params };
      if (op === 'TerminateInstances') {
        const ids = queryList(form, 'InstanceId');
        return { operation: action, checks: await instanceChecks(action, ids, lookups.instanceTags), params };
      }
      if (op === 'RunInstances')
        return { operation: action, checks: runInstancesChecks(form, lookups), params };
      const daxEc2 = await mapDaxEc2(op, form, params, lookups.securityGroupTags);
      if (daxEc2) return daxEc2;
    }
    throw new UnmappedOperation(`${action} is not in the twin's IAM table`);
  }
  throw new UnmappedOperation(`${req.service} ${req.method} ${req.path} is not in the twin's IAM table`);
}

/** RunInstances: every resource the call creates or uses, with the request tags; tag-on-create; PassRole. */
function runInstancesChecks(
  form: URLSearchParams,
  lookups: {
    launchTemplateRole: (ltId: string) => string | undefined;
    instanceProfileRole?: (profileArn: string) => string | undefined;
  },
): IamCheck[] {
  const requestTags: Record<string, string> = {};
  for (const [k, v] of form) {
    const m = /^TagSpecification\.(\d+)\.Tag\.(\d+)\.Key$/.exec(k);
    if (m) requestTags[`aws:RequestTag/${v}`] = form.get(`TagSpecification.${m[1]}.Tag.${m[2]}.Value`) ?? '';
  }
  const action = 'ec2:RunInstances';
  const lt = form.get('LaunchTemplate.LaunchTemplateId');
  const subnet = form.get('SubnetId');
  const image = form.get('ImageId');
  const checks: IamCheck[] = [
    { action, resource: arn('ec2', 'instance/*'), context: requestTags },
    { action, resource: arn('ec2', 'volume/*'), context: requestTags },
    { action, resource: arn('ec2', 'network-interface/*'), context: {} },
  ];
  if (lt) checks.push({ action, resource: arn('ec2', `launch-template/${lt}`), context: {} });
  if (subnet) checks.push({ action, resource: arn('ec2', `subnet/${subnet}`), context: {} });
  if (image) checks.push({ action, resource: `arn:aws:ec2:${REGION}::image/${image}`, context: {} });
  if (Object.keys(requestTags).length)
    checks.push({
      action: 'ec2:CreateTags',
      resource: arn('ec2', 'instance/*'),
      context: { ...requestTags, 'ec2:CreateAction': 'RunInstances' },
    });
  const role = lt ? lookups.launchTemplateRole(lt) : undefined;
  // the launch template's instance profile: its role is passed to EC2
  if (role)
    checks.push({
      action: 'iam:PassRole',
      resource: role,
      context: { 'iam:PassedToService': 'ec2.amazonaws.com' },
    });
  // an instance profile named in the request (cassandra-ec2 nodes): its role is passed to EC2
  const profile = form.get('IamInstanceProfile.Arn');
  if (profile) {
    const passed = lookups.instanceProfileRole?.(profile);
    if (!passed)
      throw new UnmappedOperation(`RunInstances with instance profile ${profile}, not the template's`);
    checks.push({
      action: 'iam:PassRole',
      resource: passed,
      context: { 'iam:PassedToService': 'ec2.amazonaws.com' },
    });
  }
  return checks;
}

function mapS3(req: ApiRequest): Mapped {
  const [, bucket = '', ...rest] = req.path.split('/');
  const key = decodeURIComponent(rest.join('/'));
  const params = Object.fromEntries(req.query);
  const m = req.method;
  const obj = (action: string): Mapped => ({
    operation: action,
    checks: [{ action, resource: `arn:aws:s3:::${bucket}/${key}`, context: {} }],
    params,
  });
  if (key) {
    if (m === 'GET' || m === 'HEAD') return obj('s3:GetObject');
    if (m === 'PUT' && !req.query.has('tagging') && !req.query.has('acl')) return obj('s3:PutObject');
    if (m === 'DELETE') return obj('s3:DeleteObject');
  } else if (m === 'GET' && req.query.get('list-type') === '2') {
    return {
      operation: 's3:ListObjectsV2',
      checks: [
        {
          action: 's3:ListBucket',
          resource: `arn:aws:s3:::${bucket}`,
          context: { 's3:prefix': req.query.get('prefix') ?? '' },
        },
      ],
      params,
    };
  }
  throw new UnmappedOperation(`s3 ${m} ${req.path}?${req.query.toString()} is not in the twin's IAM table`);
}

const AWS_OWNED = '000000000000';

export interface Decision {
  allowed: boolean;
  /** Allowed / ImplicitlyDenied / ExplicitlyDenied, or the simulator's validation error. */
  result: string;
}

/** Evaluates one check against the identity policies of a role. */
export async function evaluate(
  roleArn: string,
  policies: { name: string; doc: unknown }[],
  check: IamCheck,
): Promise<Decision> {
  // ARNs of AWS-owned SSM documents (no account) fail the simulator's resource-type
  // validation: both sides name a sentinel account instead, which no statement of the stack uses.
  const ownerless = (text: string) =>
    text.replace(/(arn:aws:ssm:[a-z0-9-]+):(?=:document\/)/g, `$1:${AWS_OWNED}`);
  const res = await runSimulation(
    {
      request: {
        principal: `${roleArn.replace(':role/', ':assumed-role/').replace('arn:aws:iam:', 'arn:aws:sts:')}/twin`,
        action: check.action,
        resource: { resource: ownerless(check.resource), accountId: ACCOUNT },
        contextVariables: check.context,
      },
      identityPolicies: policies.map((p) => ({
        name: p.name,
        policy: JSON.parse(ownerless(JSON.stringify(p.doc))) as never,
      })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(check.resourcePolicy ? { resourcePolicy: check.resourcePolicy } : {}),
    } as never,
    {},
  );
  if (res.resultType === 'error')
    return { allowed: false, result: `simulator error: ${JSON.stringify(res.errors).slice(0, 400)}` };
  return { allowed: res.overallResult === 'Allowed', result: String(res.overallResult) };
}

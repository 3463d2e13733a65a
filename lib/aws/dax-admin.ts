/**
 * DaxAdmin on DAX and EC2 (SDK v3): per run, a security group admitting the loaders only (DAX ports 8111 and
 * 9111), a subnet group over the loaders' subnets, a parameter group with the spec's cache TTLs, and the cluster;
 * all four share one name (lib/core/targets/dynamodb/dax.ts). Teardown deletes the cluster, then (once DAX has removed it) the
 * parameter group, subnet group and security group.
 */
import {
  ClusterAlreadyExistsFault,
  CreateClusterCommand,
  CreateParameterGroupCommand,
  CreateSubnetGroupCommand,
  DAXClient,
  DeleteClusterCommand,
  DeleteParameterGroupCommand,
  DeleteSubnetGroupCommand,
  DescribeClustersCommand,
  ListTagsCommand,
  UpdateParameterGroupCommand,
  type Cluster,
  type DAXClientConfig,
} from '@aws-sdk/client-dax';
import {
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  type EC2ClientConfig,
} from '@aws-sdk/client-ec2';
import {
  DAX_NAME_PATTERN,
  DAX_PORTS,
  daxEndpointUrl,
  daxNameProblems,
  daxTtlParameters,
} from '../core/targets/dynamodb/dax';
import {
  ConflictError,
  NotOwnedError,
  TAG_RUN_ID,
  type DaxAdmin,
  type DaxClusterRequest,
  type DaxClusterState,
  type DaxNetwork,
  type Tags,
} from '../core/common/ports';
import { errorName, translate } from './errors';
import {
  createLoaderOnlyGroup,
  deleteCreatedGroup,
  listRunGroups,
  type LoaderOnlyGroup,
} from './loader-only-groups';

const NOT_FOUND = new Set([
  'ClusterNotFoundFault',
  'SubnetGroupNotFoundFault',
  'ParameterGroupNotFoundFault',
]);

export class DaxClusterAdmin implements DaxAdmin {
  readonly dax: DAXClient;
  readonly ec2: EC2Client;

  constructor(
    daxClientOrConfig: DAXClient | DAXClientConfig = {},
    ec2ClientOrConfig: EC2Client | EC2ClientConfig = {},
    /** The stack's loader network and DAX service role (Lambdas that create clusters). */
    readonly network?: DaxNetwork,
  ) {
    this.dax = daxClientOrConfig instanceof DAXClient ? daxClientOrConfig : new DAXClient(daxClientOrConfig);
    this.ec2 = ec2ClientOrConfig instanceof EC2Client ? ec2ClientOrConfig : new EC2Client(ec2ClientOrConfig);
  }

  async createCluster(req: DaxClusterRequest): Promise<void> {
    const problems = daxNameProblems(req.name);
    if (problems.length) throw new Error(`DAX cluster name '${req.name}' ${problems.join('; ')}`);
    const network = this.network;
    if (!network) throw new Error(`DAX cluster ${req.name}: this adapter has no network to create it in`);
    if ((await this.describeCluster(req.name)).status !== 'MISSING') {
      throw new ConflictError(`DAX cluster ${req.name} already exists`);
    }
    const undo: (() => Promise<unknown>)[] = [];
    try {
      const sg = await this.createSecurityGroup(req, network);
      // by the id just created (or adopted): a group of that name may exist in another VPC
      undo.push(() => deleteCreatedGroup(this.ec2, sg.id, req));
      // DAX's groups carry no tags: an existing one of the name is the run's only when the security group of
      // that name was already there with the run's tag (deleteSupporting's rule), made by an earlier attempt
      await this.createOrAdopt(req.name, sg.adopted, {
        piece: 'subnet group',
        action: 'CreateSubnetGroup',
        exists: 'SubnetGroupAlreadyExistsFault',
        create: () =>
          this.dax.send(
            new CreateSubnetGroupCommand({
              SubnetGroupName: req.name,
              Description: `fleetbench run ${req.tags[TAG_RUN_ID] ?? ''}`.trim(),
              SubnetIds: network.subnetIds,
            }),
          ),
      });
      undo.push(() => this.deleteSubnetGroup(req.name));
      await this.createOrAdopt(req.name, sg.adopted, {
        piece: 'parameter group',
        action: 'CreateParameterGroup',
        exists: 'ParameterGroupAlreadyExistsFault',
        create: () =>
          this.dax.send(
            new CreateParameterGroupCommand({
              ParameterGroupName: req.name,
              Description: 'fleetbench cache TTLs',
            }),
          ),
      });
      undo.push(() => this.deleteParameterGroup(req.name));
      await this.call('DAX', `UpdateParameterGroup ${req.name}`, () =>
        this.dax.send(
          new UpdateParameterGroupCommand({
            ParameterGroupName: req.name,
            ParameterNameValues: daxTtlParameters(req.ttls).map((p) => ({
              ParameterName: p.name,
              ParameterValue: p.value,
            })),
          }),
        ),
      );
      await this.call('DAX', `CreateCluster ${req.name}`, () =>
        this.dax.send(
          new CreateClusterCommand({
            ClusterName: req.name,
            NodeType: req.nodeType,
            ReplicationFactor: req.nodes,
            IamRoleArn: network.iamRoleArn,
            SubnetGroupName: req.name,
            ParameterGroupName: req.name,
            SecurityGroupIds: [sg.id],
            ClusterEndpointEncryptionType: req.tls ? 'TLS' : 'NONE',
            SSESpecification: { Enabled: true },
            Tags: Object.entries(req.tags).map(([Key, Value]) => ({ Key, Value })),
          }),
        ),
      );
    } catch (err) {
      for (const u of undo.reverse()) await u().catch(() => undefined);
      if (err instanceof ClusterAlreadyExistsFault) {
        throw new ConflictError(`DAX cluster ${req.name} already exists`, { cause: err });
      }
      throw err;
    }
  }

  /** The cluster of that name, or undefined when there is none. */
  private async cluster(name: string): Promise<Cluster | undefined> {
    try {
      const out = await this.dax.send(new DescribeClustersCommand({ ClusterNames: [name] }));
      return out.Clusters?.[0];
    } catch (err) {
      if (errorName(err) === 'ClusterNotFoundFault') return undefined;
      throw translate('DAX', `DescribeClusters ${name}`, err);
    }
  }

  async describeCluster(name: string): Promise<DaxClusterState> {
    const c = await this.cluster(name);
    return c ? stateOf(c) : { name, status: 'MISSING' };
  }

  async clusterTags(name: string): Promise<Tags | null> {
    const arn = (await this.cluster(name))?.ClusterArn;
    return arn ? this.tagsOf(arn) : null;
  }

  async deleteCluster(name: string): Promise<boolean> {
    try {
      await this.dax.send(new DeleteClusterCommand({ ClusterName: name }));
      return true;
    } catch (err) {
      if (errorName(err) === 'ClusterNotFoundFault') return false;
      // already being deleted: DAX answers InvalidClusterStateFault; the cluster is going, as asked
      if (errorName(err) === 'InvalidClusterStateFault') {
        const s = await this.describeCluster(name);
        if (s.status === 'deleting' || s.status === 'MISSING') return s.status === 'deleting';
      }
      throw translate('DAX', `DeleteCluster ${name}`, err);
    }
  }

  async deleteSupporting(name: string, runId?: string): Promise<boolean> {
    const c = await this.describeCluster(name);
    if (c.status !== 'MISSING') return false;
    // whose the groups are: the run tag on the security group of that name, read before anything is deleted
    const groups = await this.securityGroupsNamed(name, runId);
    if (runId !== undefined && !groups.length) return true; // none of this run's: another's groups stay
    await this.deleteParameterGroup(name);
    await this.deleteSubnetGroup(name);
    for (const id of groups) await this.deleteSecurityGroupId(id, name);
    return true;
  }

  async listClusters(filter: { runId?: string }): Promise<{ name: string; status: string; tags: Tags }[]> {
    const out: { name: string; status: string; tags: Tags }[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('DAX', 'DescribeClusters', () =>
        this.dax.send(new DescribeClustersCommand({ NextToken: token })),
      );
      for (const c of page.Clusters ?? []) {
        // others' clusters: not ours, and the stack grants ListTags on fleetbench's names only
        if (!c.ClusterName || !DAX_NAME_PATTERN.test(c.ClusterName)) continue;
        const tags = await this.tagsOf(c.ClusterArn!);
        const run = tags[TAG_RUN_ID];
        if (run === undefined || (filter.runId !== undefined && run !== filter.runId)) continue;
        out.push({ name: c.ClusterName!, status: c.Status ?? 'unknown', tags });
      }
      token = page.NextToken;
    } while (token);
    return out;
  }

  async listSupporting(filter: { runId?: string }): Promise<{ name: string; tags: Tags }[]> {
    // the run's DAX groups carry its DAX resource name (other groups of a run are the stack's, not per run)
    return listRunGroups(this.ec2, DAX_NAME_PATTERN, filter);
  }

  // ------------------------------------------------------------------------------------------ pieces

  /**
   * Creates a subnet or parameter group; one of that name that exists already is adopted when `runs` (the run's
   * security group of that name was there before this attempt), refused naming it otherwise.
   */
  private async createOrAdopt(
    name: string,
    runs: boolean,
    p: { piece: string; action: string; exists: string; create: () => Promise<unknown> },
  ): Promise<void> {
    try {
      await p.create();
    } catch (err) {
      if (errorName(err) !== p.exists) throw translate('DAX', `${p.action} ${name}`, err);
      if (!runs)
        throw new NotOwnedError(
          `DAX ${p.piece} ${name} already exists and its security group of that name is not this run's ` +
            'from an earlier attempt: not adopted, left as it is',
        );
    }
  }

  private createSecurityGroup(req: DaxClusterRequest, network: DaxNetwork): Promise<LoaderOnlyGroup> {
    return createLoaderOnlyGroup(this.ec2, {
      name: req.name,
      description: 'fleetbench DAX cluster: the loaders only',
      vpcId: network.vpcId,
      loaderSecurityGroupId: network.loaderSecurityGroupId,
      ports: [DAX_PORTS.plain, DAX_PORTS.tls],
      tags: req.tags,
    });
  }

  /** Teardown and the janitor (the cluster that named them is gone): the ids of the security groups of that name carrying `runId`'s tag (any run's without it). */
  private async securityGroupsNamed(name: string, runId: string | undefined): Promise<string[]> {
    const found = await this.call('EC2', `DescribeSecurityGroups ${name}`, () =>
      this.ec2.send(
        new DescribeSecurityGroupsCommand({
          Filters: [
            { Name: 'group-name', Values: [name] },
            runId !== undefined
              ? { Name: `tag:${TAG_RUN_ID}`, Values: [runId] }
              : { Name: 'tag-key', Values: [TAG_RUN_ID] },
          ],
        }),
      ),
    );
    return (found.SecurityGroups ?? []).map((g) => g.GroupId!);
  }

  private deleteSecurityGroupId(id: string, name: string): Promise<unknown> {
    return this.call('EC2', `DeleteSecurityGroup ${id} (${name})`, () =>
      this.ec2.send(new DeleteSecurityGroupCommand({ GroupId: id })),
    );
  }

  private async tagsOf(arn: string): Promise<Tags> {
    const tags: Tags = {};
    let token: string | undefined;
    do {
      const out = await this.call('DAX', `ListTags ${arn}`, () =>
        this.dax.send(new ListTagsCommand({ ResourceName: arn, NextToken: token })),
      );
      for (const t of out.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
      token = out.NextToken;
    } while (token);
    return tags;
  }

  /** Runs a DAX delete; "not found" is success (teardown is idempotent). */
  private async ignoreMissing(action: string, f: () => Promise<unknown>): Promise<void> {
    try {
      await f();
    } catch (err) {
      if (!NOT_FOUND.has(errorName(err))) throw translate('DAX', action, err);
    }
  }

  private deleteParameterGroup(name: string): Promise<void> {
    return this.ignoreMissing(`DeleteParameterGroup ${name}`, () =>
      this.dax.send(new DeleteParameterGroupCommand({ ParameterGroupName: name })),
    );
  }

  private deleteSubnetGroup(name: string): Promise<void> {
    return this.ignoreMissing(`DeleteSubnetGroup ${name}`, () =>
      this.dax.send(new DeleteSubnetGroupCommand({ SubnetGroupName: name })),
    );
  }

  private async call<T>(service: 'DAX' | 'EC2', action: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ClusterAlreadyExistsFault) throw err;
      throw translate(service, action, err);
    }
  }
}

function stateOf(c: Cluster): DaxClusterState {
  const d = c.ClusterDiscoveryEndpoint;
  const tls = c.ClusterEndpointEncryptionType === 'TLS';
  return {
    name: c.ClusterName!,
    status: c.Status ?? 'unknown',
    ...(d?.Address && d.Port ? { endpoint: daxEndpointUrl({ address: d.Address, port: d.Port }, tls) } : {}),
    nodes: c.TotalNodes,
    nodeType: c.NodeType,
    securityGroupIds: (c.SecurityGroups ?? []).map((g) => g.SecurityGroupIdentifier!).filter(Boolean),
    parameterGroup: c.ParameterGroup?.ParameterGroupName,
    subnetGroup: c.SubnetGroup,
  };
}

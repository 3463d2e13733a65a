/**
 * The MemoryDbAdmin port: what the pipeline asks of Amazon MemoryDB (lib/aws/memorydb-admin.ts implements it over
 * the MemoryDB and EC2 APIs). One name (memoryDbResourceName) is shared by the run's cluster of a target and its
 * supporting pieces: the ACL, the ACL's user, the subnet group and the security group.
 */
import type { Tags } from '../../common/tags';
import type { KindServices } from '../../common/ports';

/** Where a run's clusters go: the loaders' network (the stack sets it). */
export interface MemoryDbNetwork {
  vpcId: string;
  /** Subnets of the loaders' VPC for the subnet group. */
  subnetIds: string[];
  /** The loaders' security group: the only source the cluster's security group admits, on the cluster's port. */
  loaderSecurityGroupId: string;
}

export interface MemoryDbClusterRequest {
  /** Cluster, ACL, user, subnet group and security group name (memoryDbResourceName). */
  name: string;
  /** e.g. db.r7g.large */
  nodeType: string;
  shards: number;
  replicasPerShard: number;
  engine: 'valkey' | 'redis';
  /** major.minor, e.g. 7.2 */
  engineVersion: string;
  /** The ACL user's password (the user's name is `name`); the run keeps it in Secrets Manager. */
  password: string;
  tags: Tags;
}

export interface MemoryDbClusterState {
  name: string;
  /** creating | available | updating | deleting | ..., or MISSING when there is no such cluster. */
  status: string;
  /** The cluster (configuration) endpoint, once MemoryDB reports it. */
  endpoint?: { host: string; port: number };
  tls?: boolean;
  /** The CA to trust, when it is not a public one (the local stand-in's). */
  caFile?: string;
  acl?: string;
  shards?: number;
  nodeType?: string;
}

export interface MemoryDbAdmin {
  /** The stack's network (unset: this adapter can list and delete, not create). */
  readonly network?: MemoryDbNetwork;
  /**
   * Creates the security group (ingress from the loaders only, on 6379), the subnet group, the ACL user (password
   * authentication, all keys and commands), the ACL holding it, and the cluster (TLS on) with that ACL, all tagged.
   * A cluster of that name that already exists is a ConflictError. A piece of that name that exists already (a
   * retried step whose first attempt died part-way) is adopted when it carries the request's run tag (DAX-style
   * untaggable pieces: never), refused with NotOwnedError naming it otherwise and left as it is. On a failure
   * part-way, what was created or adopted is deleted again (only once the run's tag is read on it) before the
   * error is thrown.
   */
  createCluster(req: MemoryDbClusterRequest): Promise<void>;
  describeCluster(name: string): Promise<MemoryDbClusterState>;
  /** The cluster's tags, read on the cluster (null when there is none): teardown's ownership check. */
  clusterTags(name: string): Promise<Tags | null>;
  /** Starts deleting the cluster (no final snapshot); false when it did not exist. Deleting takes minutes. */
  deleteCluster(name: string): Promise<boolean>;
  /**
   * Deletes the ACL, the user, the subnet group and the security group of that name once the cluster is gone; false
   * while the cluster still exists (call again later). Missing pieces are not an error.
   */
  deleteSupporting(name: string): Promise<boolean>;
  /** Clusters carrying the run tag (any fleetbench run when runId is omitted), with their tags. */
  listClusters(filter: { runId?: string }): Promise<{ name: string; status: string; tags: Tags }[]>;
  /** Supporting pieces left by runs (found by their security group's run tag), with the group's tags. */
  listSupporting(filter: { runId?: string }): Promise<{ name: string; tags: Tags }[]>;
}

declare module '../../common/ports' {
  /** MemoryDB's entry in the ports' per-kind adapters (Ports.kindServices). */
  interface KindServices {
    /** Amazon MemoryDB clusters (memorydb targets); a run with such a target fails without it. */
    memorydb: MemoryDbAdmin;
  }
}

/** The MemoryDB adapter among the ports (undefined where the stack or the local mode has none). */
export function memoryDbPort(ports: { kindServices?: Partial<KindServices> }): MemoryDbAdmin | undefined {
  return ports.kindServices?.memorydb;
}

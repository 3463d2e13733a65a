/**
 * Preflight: what a run spec needs from the account (DynamoDB capacity per table and per account,
 * EC2 On-Demand vCPUs per quota, availability zones for the replication factor, Run Command's execution
 * timeout) against what the account has. Pure: values in (through the AccountQuotas port), problems out,
 * one line each naming the quota or setting and the number needed vs available. Used by the Plan step
 * before anything is provisioned and by `fleetbench doctor`.
 */
import { launchedLoaders, type Plan } from '../plan';
import type { RunSpec } from '../spec';
import type { AccountQuotas, DynamoDbLimits } from '../common/ports';
import { loadTimes, cellTimes } from './timing';
import { vcpusOf } from '../common/instance-types';
import { kindOf } from '../targets/registry';

/** Run Command's largest executionTimeout (https://docs.aws.amazon.com/systems-manager/latest/userguide/running-commands.html). */
export const SSM_MAX_EXECUTION_TIMEOUT_SECONDS = 172_800;

/**
 * EC2 On-Demand vCPU quotas (service code `ec2`) by instance family, as Service Quotas names them
 * (https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html).
 */
export const VCPU_QUOTAS = {
  standard: { code: 'L-1216C47A', name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances' },
  f: { code: 'L-74FC7D96', name: 'Running On-Demand F instances' },
  g: { code: 'L-DB2E81BA', name: 'Running On-Demand G and VT instances' },
  inf: { code: 'L-1945791B', name: 'Running On-Demand Inf instances' },
  p: { code: 'L-417A185B', name: 'Running On-Demand P instances' },
  x: { code: 'L-7295265B', name: 'Running On-Demand X instances' },
} as const;
export type VcpuQuota = (typeof VCPU_QUOTAS)[keyof typeof VCPU_QUOTAS];

/** The On-Demand vCPU quota an instance type counts against, or null for families not listed. */
export function vcpuQuotaOf(instanceType: string): VcpuQuota | null {
  const family = instanceType.split('.')[0] ?? '';
  if (/^(inf|trn)/.test(family)) return family.startsWith('inf') ? VCPU_QUOTAS.inf : null;
  if (/^(vt|g)/.test(family)) return VCPU_QUOTAS.g;
  if (/^x/.test(family)) return VCPU_QUOTAS.x;
  if (/^p/.test(family)) return VCPU_QUOTAS.p;
  if (/^f/.test(family)) return VCPU_QUOTAS.f;
  if (/^[acdhimrtz]/.test(family)) return VCPU_QUOTAS.standard;
  return null;
}

/** What a run needs from the account. */
export interface AccountNeeds {
  /** Provisioned (or capped on-demand) throughput of each table the run creates. */
  tables: { target: string; path: string; rcu: number; wcu: number }[];
  /** vCPUs running at once, per On-Demand quota. */
  vcpus: { quota: VcpuQuota; vcpus: number; what: string[] }[];
  /** Instance types whose vCPU count or quota this cannot tell. */
  unknownTypes: string[];
  /** The largest replication factor of a scylla-ec2 or cassandra-ec2 target, with its path. */
  replication: { path: string; factor: number } | null;
  /** The longest Run Command execution timeout the run asks for. */
  longestCommand: { phase: string; seconds: number };
}

export function accountNeeds(spec: RunSpec, plan: Plan): AccountNeeds {
  const tables: AccountNeeds['tables'] = [];
  const vcpus = new Map<string, { quota: VcpuQuota; vcpus: number; what: string[] }>();
  const unknownTypes: string[] = [];
  const addVcpus = (type: string, count: number, what: string) => {
    const quota = vcpuQuotaOf(type);
    const each = vcpusOf(type);
    if (!quota || each === null) {
      unknownTypes.push(type);
      return;
    }
    const e = vcpus.get(quota.code) ?? { quota, vcpus: 0, what: [] };
    e.vcpus += count * each;
    e.what.push(`${count} × ${type} ${what}`);
    vcpus.set(quota.code, e);
  };
  // a parallel run's loader groups run at the same time: their sum (every target's nodes are counted too)
  const loaders = launchedLoaders(plan);
  addVcpus(plan.fleet.instanceType, loaders, loaders === 1 ? 'loader' : 'loaders');
  let replication: AccountNeeds['replication'] = null;
  // what each target asks of the account, as its kind says (lib/core/targets/<kind>/kind.ts)
  spec.targets.forEach((t, i) => {
    const needs = kindOf(t).accountNeeds?.(t, `targets[${i}]`);
    if (needs?.table) tables.push({ target: t.id, ...needs.table });
    if (needs?.nodes) addVcpus(needs.nodes.instanceType, needs.nodes.count, `${needs.nodes.what} (${t.id})`);
    if (needs?.replication && (!replication || needs.replication.factor > replication.factor))
      replication = needs.replication;
  });
  const load = plan.load ? loadTimes(plan, spec).deadline : 0;
  const cell = Math.max(0, ...plan.cells.map((c) => cellTimes(c.durationSeconds).deadline));
  return {
    tables,
    vcpus: [...vcpus.values()],
    unknownTypes,
    replication,
    longestCommand: load > cell ? { phase: 'load', seconds: load } : { phase: 'cell', seconds: cell },
  };
}

/** What the account has; a null value could not be read. */
export interface AccountFacts {
  dynamodb: DynamoDbLimits | null;
  /** Applied value per vCPU quota code. */
  vcpuQuotas: Record<string, number | null>;
  /** Availability zones the stack's subnets span (where nodes can go). */
  availabilityZones: number | null;
}

export interface PreflightProblem {
  /** The quota or setting, e.g. "DynamoDB per-table write capacity (TableMaxWriteCapacityUnits)". */
  setting: string;
  /** JSON path of the spec field that needs it. */
  path: string;
  needed: number;
  available: number | null;
  /** One line: setting, needed vs available, what to do. */
  message: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Problems: needs above what the account has (or could not be read). Empty: the run fits. */
export function checkAccount(needs: AccountNeeds, facts: AccountFacts): PreflightProblem[] {
  const out: PreflightProblem[] = [];
  const raise = 'raise it in Service Quotas, or lower the spec';
  const add = (setting: string, path: string, needed: number, available: number | null, hint: string) =>
    out.push({
      setting,
      path,
      needed,
      available,
      message:
        available === null
          ? `${setting}: needs ${fmt(needed)}; the account's value could not be read (${hint.replace(raise, 'check it in the Service Quotas console')})`
          : `${setting}: needs ${fmt(needed)}, the account has ${fmt(available)} (${hint})`,
    });
  if (needs.tables.length) {
    const d = facts.dynamodb;
    for (const t of needs.tables) {
      if (!d || t.rcu > d.tableMaxReadCapacityUnits)
        add(
          'DynamoDB per-table read capacity (TableMaxReadCapacityUnits)',
          t.path,
          t.rcu,
          d?.tableMaxReadCapacityUnits ?? null,
          raise,
        );
      if (!d || t.wcu > d.tableMaxWriteCapacityUnits)
        add(
          'DynamoDB per-table write capacity (TableMaxWriteCapacityUnits)',
          t.path,
          t.wcu,
          d?.tableMaxWriteCapacityUnits ?? null,
          raise,
        );
    }
    const rcu = needs.tables.reduce((s, t) => s + t.rcu, 0);
    const wcu = needs.tables.reduce((s, t) => s + t.wcu, 0);
    if (d && rcu > d.accountMaxReadCapacityUnits)
      add(
        'DynamoDB account read capacity (AccountMaxReadCapacityUnits)',
        'targets',
        rcu,
        d.accountMaxReadCapacityUnits,
        raise,
      );
    if (d && wcu > d.accountMaxWriteCapacityUnits)
      add(
        'DynamoDB account write capacity (AccountMaxWriteCapacityUnits)',
        'targets',
        wcu,
        d.accountMaxWriteCapacityUnits,
        raise,
      );
  }
  for (const v of needs.vcpus) {
    const have = facts.vcpuQuotas[v.quota.code] ?? null;
    if (have === null || v.vcpus > have)
      add(
        `EC2 ${v.quota.name} vCPUs (ec2/${v.quota.code})`,
        'loaders.instanceType',
        v.vcpus,
        have,
        `${v.what.join(' + ')}; ${raise}`,
      );
  }
  for (const type of needs.unknownTypes)
    out.push({
      setting: 'EC2 instance type',
      path: 'instanceType',
      needed: 0,
      available: null,
      message: `EC2 instance type ${type}: cannot tell its vCPUs or On-Demand quota; check the quota by hand`,
    });
  if (
    needs.replication &&
    facts.availabilityZones !== null &&
    needs.replication.factor > facts.availabilityZones
  )
    add(
      "availability zones of the stack's subnets",
      needs.replication.path,
      needs.replication.factor,
      facts.availabilityZones,
      'one replica per AZ: lower replicationFactor, or deploy into a VPC with that many AZs',
    );
  if (needs.longestCommand.seconds > SSM_MAX_EXECUTION_TIMEOUT_SECONDS)
    add(
      'Run Command executionTimeout (seconds)',
      needs.longestCommand.phase === 'load' ? 'dataset.loadTargetOpsPerSec' : 'workload.durationSeconds',
      needs.longestCommand.seconds,
      SSM_MAX_EXECUTION_TIMEOUT_SECONDS,
      needs.longestCommand.phase === 'load'
        ? 'the load phase could outlast one command: raise dataset.loadTargetOpsPerSec or split the dataset'
        : 'a cell could outlast one command: shorten workload.durationSeconds',
    );
  return out;
}

/** Reads what `needs` asks about through the port (each value once) and checks it. */
export async function preflight(
  needs: AccountNeeds,
  quotas: AccountQuotas,
  stack: { availabilityZones: number | null },
): Promise<PreflightProblem[]> {
  const facts: AccountFacts = {
    dynamodb: needs.tables.length ? await quotas.dynamoDbLimits() : null,
    vcpuQuotas: {},
    availabilityZones: stack.availabilityZones,
  };
  for (const v of needs.vcpus) facts.vcpuQuotas[v.quota.code] = await quotas.quota('ec2', v.quota.code);
  if (needs.replication) {
    const zones = await quotas.availabilityZones();
    const regionAzs = zones ? zones.length : null;
    facts.availabilityZones =
      facts.availabilityZones === null || regionAzs === null
        ? (facts.availabilityZones ?? regionAzs)
        : Math.min(facts.availabilityZones, regionAzs);
  }
  return checkAccount(needs, facts);
}

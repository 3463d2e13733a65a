/**
 * Monthly cost of one target at a measured (or intended) throughput: the document the
 * `fleetbench cost` command prints. Each target kind declares its cost input (its target's fields,
 * following the run spec's names, only those it prices) and its report in its own folder
 * (`monthlyCost` of lib/core/targets/<kind>/kind.ts); this module builds the input schema from the
 * registry and names no kind.
 */
import { z } from 'zod';
import { InputError, type Issue } from '../common/errors';
import { zodErrorIssues } from '../spec/errors';
import type { PriceBook } from './book';
import { COST_INPUT_FIELDS, type LinesCostReport } from './report-parts';
import { TARGET_KINDS } from '../targets/registry';
import { TARGET_SCHEMAS as SPEC_TARGET_SCHEMAS } from '../targets/specs';
import type { Target, TargetKind } from '../spec/schema';
import type { DynamoCostReport } from '../targets/dynamodb/cost';
import type { KeyspacesCostReport } from '../targets/keyspaces/cost';

export type { DynamoCostReport } from '../targets/dynamodb/cost';

// ---- the input -------------------------------------------------------------------------------

type TargetSchema = (typeof TARGET_KINDS)[Target['kind']]['monthlyCost']['input'];

/** Each kind's cost target, once (kinds that share one declare the same schema), in the registry's order. */
const TARGET_SCHEMAS = [...new Set(Object.values(TARGET_KINDS).map((k) => k.monthlyCost.input))] as [
  TargetSchema,
  ...TargetSchema[],
];

export const CostInputSchema = z.strictObject({
  target: z.discriminatedUnion('kind', TARGET_SCHEMAS),
  ...COST_INPUT_FIELDS,
});

export type CostInput = z.input<typeof CostInputSchema>;
type ParsedInput = z.output<typeof CostInputSchema>;

/** Each kind's check (specTargetCheck), built once. */
const specTargetChecks = new Map<string, z.ZodObject | undefined>();

/**
 * The run spec's own strict schema of a kind's target (lib/core/targets/<kind>/spec.ts), its fields made optional (a
 * cost input needs only those its kind prices) and the cost input's own additions allowed (a node's `usdPerHour`,
 * `ebsGb`): a misspelt field (`consistentRead`, `tableclass`, one under `billing` or `dax`) is refused with the
 * spec's "did you mean", rather than ignored while its default is priced.
 */
function specTargetCheck(kind: unknown): z.ZodObject | undefined {
  if (typeof kind !== 'string') return undefined; // the cost input's own union names the kinds
  if (!specTargetChecks.has(kind)) specTargetChecks.set(kind, buildSpecTargetCheck(kind));
  return specTargetChecks.get(kind);
}

function buildSpecTargetCheck(kind: string): z.ZodObject | undefined {
  const ofKind = (s: z.ZodObject) => {
    const k = s.shape.kind as z.ZodLiteral | z.ZodEnum;
    return ('values' in k ? [...k.values] : k.options).includes(kind as never);
  };
  const spec = (SPEC_TARGET_SCHEMAS as readonly z.ZodObject[]).find(ofKind);
  const cost = (TARGET_SCHEMAS as readonly z.ZodObject[]).find(ofKind);
  if (!spec || !cost) return undefined; // an unknown kind: the cost input's own union names the kinds
  const extra = Object.entries(cost.shape).filter(([k]) => !(k in spec.shape));
  return spec.partial().extend(Object.fromEntries(extra));
}

/** The target's fields against the run spec's strict schema of its kind (specTargetCheck). */
function specTargetIssues(data: unknown, where: string): Issue[] {
  const target = (data as { target?: unknown } | null)?.target;
  if (!target || typeof target !== 'object') return [];
  const check = specTargetCheck((target as { kind?: unknown }).kind);
  const r = check?.safeParse(target);
  if (!check || !r || r.success) return [];
  return zodErrorIssues(r.error, check, target, { under: where ? `${where}.target` : 'target' });
}

export function parseCostInput(data: unknown, where = ''): ParsedInput {
  const issues = specTargetIssues(data, where);
  const r = CostInputSchema.safeParse(data);
  if (!r.success)
    for (const i of zodErrorIssues(r.error, CostInputSchema, data, where ? { under: where } : {}))
      if (!issues.some((j) => j.path === i.path)) issues.push(i);
  if (issues.length || !r.success) throw new InputError(issues);
  return r.data;
}

// ---- the output ------------------------------------------------------------------------------

/** The reports of tables (provisioned and on-demand totals, the capacity they need). */
type TableReport = DynamoCostReport | KeyspacesCostReport;
/** The kinds priced by monthly lines: all but the tables'. */
type LinesKind = Exclude<TargetKind, TableReport['kind']>;
/** A target priced by its monthly lines (nodes, storage, an external service's charges, a managed cluster's nodes). */
export type ClusterCostReport = LinesCostReport & {
  kind: LinesKind;
  target: { id?: string; kind: LinesKind };
};

export type CostReport = TableReport | ClusterCostReport;

/** Monthly cost of one target at a throughput, priced with a book. */
export function monthlyCost(raw: unknown, book: PriceBook): CostReport {
  const input = parseCostInput(raw);
  const kind = (input.target as { kind: Target['kind'] }).kind;
  return TARGET_KINDS[kind].monthlyCost.report(input.target, input, book) as CostReport;
}

/** A table's report (DynamoDB's shape: provisioned and on-demand totals, the capacity it needs). */
export function isTableReport(r: CostReport): r is TableReport {
  return 'capacity' in r;
}

/** The headline monthly totals of a report, by pricing model. */
export function headlineTotals(r: CostReport): Record<string, number> {
  // a table with DAX: its cost includes the cluster's
  if ('dax' in r && r.dax) return { ...r.dax.withDax };
  if (isTableReport(r))
    return { provisioned: r.monthly.provisioned.total, onDemand: r.monthly.onDemand.total };
  return { total: r.monthly.total };
}

/**
 * The monthly cost of the target as it is billed: a table with its own provisioned capacity at the capacity the
 * throughput needs (provisioned), otherwise on-demand; any other target its total. With both models of a table
 * (null for other targets).
 */
export function billedMonthly(r: CostReport): {
  provisioned: number | null;
  onDemand: number | null;
  own: number;
} {
  const totals = headlineTotals(r);
  if (!isTableReport(r)) return { provisioned: null, onDemand: null, own: totals.total! };
  const provisioned = totals.provisioned!;
  const onDemand = totals.onDemand!;
  return { provisioned, onDemand, own: r.capacity.configured ? provisioned : onDemand };
}

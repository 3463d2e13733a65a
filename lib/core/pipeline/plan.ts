/**
 * Plan: validate the spec, expand it into cells, check what the AWS pipeline can run, refuse runs
 * that would exceed the budget or the execution-history limit, refuse a scheduled run while the
 * previous run of the same schedule is still going, then write spec.json, plan.json and
 * context.json to the object store and return the small RunContext.
 */
import { InputError } from '../common/errors';
import { launchedLoaders, planRun, type Plan } from '../plan';
import { validateSpec, type RunSpec } from '../spec';
import { cellCount } from '../spec/grid-size';
import { type AccountQuotas, type Clock, type ObjectStore, type RunRegistry } from '../common/ports';
import { accountNeeds, preflight } from './preflight';
import { contextKey, runIdFromExecutionName, specKey, writePlan, type RunContext } from './context';
import { phaseTimes } from './timing';
import { historyBudget, readyChecksOf } from '../plan/history';
import { plannedJobIssues } from './plan-checks';
import { contextEntries, deployFindings, loadsData } from '../targets/registry';
import { addJarDigests, storeJarReader, type JarReader } from './binding-digests';
import { planPriceBook, runPriceBookKey } from './prices';
import { priceBookWarnings } from '../cost/book-choice';
import { resumeRun, type ResumeDeps } from './resume';
import { targetConcurrency, targetSpans } from './run-context';

export interface PlanInput {
  /** `$$.Execution.Name`; the run id is derived from it. */
  executionName: string;
  /** The run spec inline (console / schedules) ... */
  spec?: unknown;
  /** ... or the key of a spec already in the results store. */
  specKey?: string;
  /** Set by schedules: the schedule's name (overlapping runs of it are refused). */
  scheduleName?: string;
  /** A failed run's id: this execution resumes it (./resume.ts) instead of planning a spec. */
  resume?: unknown;
  /** The execution's input, when the state machine passes it whole (spec, specKey, scheduleName, resume). */
  input?: { spec?: unknown; specKey?: string; scheduleName?: string; resume?: unknown } | null;
}

export interface PlanDeps {
  store: ObjectStore;
  clock: Clock;
  /** Needed only for scheduled runs. */
  runs?: RunRegistry;
  /** The state machine's timeout: plans whose worst case exceeds it are refused. */
  maxRunSeconds?: number;
  /** The run's own AWS cost estimate in USD (for `budget.maxUsd`); without it the budget is not checked. */
  estimateRunUsd?: (spec: RunSpec, plan: Plan) => number;
  /**
   * The region the stack (and this function) runs in: a spec without `region` gets it, a spec naming
   * another region is refused. Without it (local mode) the spec's region stands.
   */
  region?: string;
  /** The stack's account (a credentials secret must be one of its own), when known. */
  account?: string;
  /** The account's quotas: the run is refused before anything is provisioned when it does not fit. */
  quotas?: AccountQuotas;
  /** Availability zones the stack's subnets span (a node cluster's replicas go one per AZ). */
  availabilityZones?: number | null;
  /**
   * The stack's loader network (LoaderFleet.network): `private` has no route to the internet (no NAT),
   * so targets reached through a public endpoint cannot be benchmarked from it.
   */
  network?: 'public' | 'private' | 'existing';
  /** Reads a user's binding jar to record its SHA-256. @default the jars under the store's root */
  readJar?: JarReader;
  /** A resume's checks of the run's resources the failed execution's teardown may not have finished removing. */
  ports?: ResumeDeps['ports'];
}

/** The spec's region against the stack's: the stack's when the spec names none; a mismatch is refused. */
export function stackRegion(raw: unknown, spec: RunSpec, region: string | undefined): RunSpec {
  if (!region) return spec;
  const named = (raw as { region?: unknown }).region;
  if (named !== undefined && named !== region) {
    throw new InputError([
      {
        path: 'region',
        message:
          `the spec's region is ${String(named)} but the stack runs in ${region} (its loaders, nodes and tables would ` +
          `be there): remove "region" from the spec or set it to ${region}, or run it on a stack deployed in ${String(named)}`,
      },
    ]);
  }
  return { ...spec, region };
}

/** A scheduled run refused because the previous run of the same schedule is still running. */
export class ScheduleOverlapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScheduleOverlapError';
  }
}

export async function plan(state: PlanInput, deps: PlanDeps): Promise<RunContext> {
  const input: PlanInput = state?.input ? { ...state.input, executionName: state.executionName } : state;
  if (!input || typeof input.executionName !== 'string') {
    throw new InputError([
      { path: 'executionName', message: 'missing (the state machine passes $$.Execution.Name)' },
    ]);
  }
  if (input.resume !== undefined) {
    if (input.spec !== undefined || input.specKey !== undefined)
      throw new InputError([
        { path: 'resume', message: 'resumes a run by its id alone: give "resume" or a spec, not both' },
      ]);
    return resumeRun({ resume: input.resume, executionName: input.executionName }, deps);
  }
  const runId = runIdFromExecutionName(input.executionName);
  const raw = await specOf(input, deps.store);
  const validated = validateSpec(raw);
  const spec = stackRegion(raw, validated.spec, deps.region);
  const warnings = [...validated.warnings];
  // what the stack cannot deploy (each kind's rules: roles, network, security groups, binding jars)
  const deploy = deployFindings({
    spec,
    storeUri: deps.store.uri,
    network: deps.network,
    ...(deps.account ? { account: deps.account } : {}),
  });
  warnings.push(...deploy.warnings);
  if (deploy.issues.length) throw new InputError(deploy.issues);
  refuseOverHistoryBudget(spec);
  // the newest price book for the spec's region (the stack's refreshed one, else a built-in one), kept with the run
  const book = await planPriceBook(deps.store, spec.region);
  warnings.push(...priceBookWarnings(book, { region: spec.region, nowMs: deps.clock.nowMs() }));
  const p = planRun(spec, { runId, priceBook: book });
  await addJarDigests(p, deps.readJar ?? storeJarReader(deps.store));
  refuseOverBudget(spec, p, deps);
  await refuseScheduleOverlap(input, deps);
  warnings.push(...(await accountChecks(spec, p, deps)));
  const ctx = runContext({ runId, spec, plan: p, input, deps });
  // whatever the loader agent would refuse at StartLoad/StartCell, refused now
  const jobIssues = plannedJobIssues(ctx, p, spec);
  if (jobIssues.length) throw new InputError(jobIssues);
  await deps.store.putJson(specKey(runId), spec);
  await deps.store.putJson(runPriceBookKey(runId), { ...book, file: undefined });
  await writePlan(deps.store, { ...p, warnings: [...warnings, ...p.warnings] });
  await deps.store.putJson(contextKey(runId), ctx);
  return ctx;
}

/** The spec of the execution input: inline, or read from the store by its key. */
async function specOf(input: PlanInput, store: ObjectStore): Promise<unknown> {
  let raw: unknown = input.spec;
  if (raw === undefined && input.specKey) raw = await store.getJson(input.specKey);
  if (raw === undefined || raw === null) {
    throw new InputError([
      { path: 'spec', message: 'the execution input needs "spec" (the run spec object) or "specKey"' },
    ]);
  }
  if (typeof raw === 'string') {
    throw new InputError([
      { path: 'spec', message: 'must be a JSON object, not a string (paste the spec itself)' },
    ]);
  }
  return raw;
}

/** The history budget from the grid's size, counted: a grid too large for one execution is not planned at all. */
function refuseOverHistoryBudget(spec: RunSpec): void {
  const cells = cellCount(spec);
  const loads = spec.dataset.load ? spec.targets.filter(loadsData).length : 0;
  const budget = historyBudget({
    cells,
    loads,
    targets: spec.targets.length,
    readyChecks: readyChecksOf(spec.targets),
  });
  if (budget.events <= budget.limit) return;
  throw new InputError([
    {
      path: 'workload',
      message:
        `the plan has ${cells} cells; at up to ${budget.perCell} history events per cell the run could ` +
        `reach ${budget.events} events, above the ${budget.limit} this pipeline allows (Step Functions stops at ` +
        `25,000): split the spec into smaller runs (fewer read proportions, distributions or throughput steps)`,
    },
  ]);
}

function refuseOverBudget(spec: RunSpec, p: Plan, deps: PlanDeps): void {
  if (!spec.budget || !deps.estimateRunUsd) return;
  const usd = deps.estimateRunUsd(spec, p);
  if (usd > spec.budget.maxUsd) {
    throw new InputError([
      {
        path: 'budget.maxUsd',
        message: `the run is estimated at $${usd.toFixed(2)}, above the budget of $${spec.budget.maxUsd}`,
      },
    ]);
  }
}

async function refuseScheduleOverlap(input: PlanInput, deps: PlanDeps): Promise<void> {
  if (!input.scheduleName) return;
  if (!deps.runs) throw new Error('plan: a scheduled run needs the run registry');
  const others = (await deps.runs.running()).filter(
    (r) => r.scheduleName === input.scheduleName && r.name !== input.executionName,
  );
  if (others.length) {
    throw new ScheduleOverlapError(
      `schedule ${input.scheduleName}: the previous run (${others.map((o) => o.name).join(', ')}) is still running; ` +
        'this run was not started',
    );
  }
}

/** Quotas, AZs for the replication factor, Run Command's timeout: before anything is provisioned; warnings. */
async function accountChecks(spec: RunSpec, p: Plan, deps: PlanDeps): Promise<string[]> {
  if (!deps.quotas) return [];
  const problems = await preflight(accountNeeds(spec, p), deps.quotas, {
    availabilityZones: deps.availabilityZones ?? null,
  });
  const refused = problems.filter((q) => q.available !== null);
  if (refused.length) throw new InputError(refused.map((q) => ({ path: q.path, message: q.message })));
  return problems.map((q) => `unverified: ${q.message}`);
}

/** The run context Plan returns (and stores), refused when the run could outlast the state machine. */
function runContext(args: {
  runId: string;
  spec: RunSpec;
  plan: Plan;
  input: PlanInput;
  deps: PlanDeps;
}): RunContext {
  const { runId, spec, plan: p, input, deps } = args;
  const now = deps.clock.nowMs();
  const times = phaseTimes(p, spec);
  if (deps.maxRunSeconds && times.worstCaseSeconds > deps.maxRunSeconds) {
    throw new InputError([
      {
        path: 'workload.durationSeconds',
        message:
          `the run could take up to ${Math.ceil(times.worstCaseSeconds / 3600)} h, longer than the state machine's ` +
          `timeout of ${Math.floor(deps.maxRunSeconds / 3600)} h: split the spec or shorten the cells`,
      },
    ]);
  }
  // a parallel run's span carries its loader group's size (its loaders carry the target's id as their group)
  const groups = new Map((p.loaderGroups ?? []).map((g) => [g.target, g.loaders]));
  const targets = targetSpans(
    spec.targets.map((t) => t.id),
    p.cells,
    p.load ? p.load.targets : [],
  ).map((span) => (groups.has(span.id) ? { ...span, loaders: groups.get(span.id)! } : span));
  return {
    runId,
    specName: spec.name,
    storeUri: deps.store.uri,
    startedAtMs: now,
    cellCount: p.cells.length,
    targets,
    targetConcurrency: targetConcurrency(spec.execution, targets.length),
    loadTargets: p.load ? p.load.targets : [],
    loadCount: p.load ? p.load.targets.length : 0,
    loaders: launchedLoaders(p),
    instanceType: p.fleet.instanceType,
    resources: contextEntries(spec.targets, { runId, tables: p.tables }),
    // the janitor may clean up after 1.5 × the worst case, plus an hour
    expiresAt: Math.ceil(now / 1000 + times.worstCaseSeconds * 1.5 + 3600),
    ...(input.scheduleName ? { scheduleName: input.scheduleName } : {}),
  };
}

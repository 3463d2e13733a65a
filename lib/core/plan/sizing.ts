/**
 * Loader sizing, for concurrency and for CPU; the fleet gets whichever needs more loaders.
 *
 * Concurrency, by Little's Law (concurrency = throughput × mean latency):
 *   requiredConcurrency = ceil(maxTargetOps × expectedLatencyMs / 1000 × headroom)
 *   concurrency loaders = ceil(requiredConcurrency / (processesPerLoader × threadsPerProcess))
 *
 * CPU, from the binding's measured CPU per operation (the price book's `loaderCpu`, lib/core/cost/books/):
 *   CPU-ms per op on the loader = cpuMsPerThousandOps / 1000 × perVcpuFactor(instance family)
 *   CPUs needed                 = maxTargetOps × CPU-ms per op / 1000
 *   CPU loaders                 = ceil(CPUs needed / (MAX_LOADER_CPU × vCPUs of the instance type))
 * so no loader is planned above 70 % CPU, the level at which a loader makes its cell suspect
 * (lib/core/results/loader-cpu.ts). Headroom is not applied to CPU: the 70 % ceiling is the CPU's margin.
 * Without a figure for the target's protocol or the instance family, or an instance size whose vCPUs are
 * not known, the fleet is sized for concurrency only and the plan says so.
 */
import { DEFAULT_EXPECTED_LATENCY_MS, type RunSpec, type Target } from '../spec/schema';
import { loadPriceBook, type LoaderCpuBinding, type LoaderCpuBook, type PriceBook } from '../cost/book';
import { LOADER_CPU_SUSPECT_PCT } from '../results/loader-cpu';
import type { BindingId } from '../contract/bindings';
import { bindingIdOf } from './targets';
import type { CpuSizing, TargetSizing } from './sizing-types';
import { vcpusOf } from '../common/instance-types';

/** Highest planned CPU utilisation of a loader, as a fraction of its vCPUs. */
export const MAX_LOADER_CPU = LOADER_CPU_SUSPECT_PCT / 100;

export type { CpuSizing, TargetSizing };

export function expectedLatencyMs(t: Target): number {
  return t.expectedLatencyMs ?? DEFAULT_EXPECTED_LATENCY_MS[t.kind];
}

/** ceil() that ignores binary noise: 200000 × 6.2 / 1000 is 1240.0000000000002 in floating point. */
export function ceilClean(x: number): number {
  return Math.ceil(Math.round(x * 1e9) / 1e9);
}

/**
 * The nominal rate of an unpaced cell (`targetOpsPerSec: "max"`): what the spec's loaders reach when every
 * thread has one request in flight at the target's expected latency, Little's Law read the other way
 * (throughput = concurrency / latency) with the spec's loaders.count (validation requires a number). The
 * plan prices and sizes the cell by it, an upper bound: throttling and back-off only slow the threads.
 */
export function unpacedOpsPerSec(spec: RunSpec, target: Target): number {
  const l = spec.loaders;
  const loaders = l.count === 'auto' ? 1 : l.count;
  return Math.floor(
    (loaders * l.processesPerLoader * l.threadsPerProcess * 1000) / expectedLatencyMs(target),
  );
}

export function requiredConcurrency(opsPerSec: number, latencyMs: number, headroom: number): number {
  return ceilClean(((opsPerSec * latencyMs) / 1000) * headroom);
}

/** CPU sizing of `maxTargetOpsPerSec` on `instanceType`, or why there is none. */
export function cpuSizing(
  book: { id: string; loaderCpu?: LoaderCpuBook },
  protocol: BindingId,
  instanceType: string,
  maxTargetOpsPerSec: number,
): CpuSizing | { note: string } {
  const binding = (book.loaderCpu?.bindings as Partial<Record<BindingId, LoaderCpuBinding>> | undefined)?.[
    protocol
  ];
  if (!binding)
    return {
      note: `price book "${book.id}" has no measured loader CPU per operation for the ${protocol} binding`,
    };
  const family = instanceType.split('.')[0]!;
  const fam = book.loaderCpu!.families[family];
  if (!fam)
    return { note: `price book "${book.id}" has no loader CPU factor for instance family "${family}"` };
  const vcpus = vcpusOf(instanceType);
  if (vcpus === null) return { note: `the vCPUs of "${instanceType}" are not known from its size` };
  const cpuMsPerOp = (binding.cpuMsPerThousandOps / 1000) * fam.perVcpuFactor;
  const cpusNeeded = (maxTargetOpsPerSec * cpuMsPerOp) / 1000;
  const loaders = Math.max(1, ceilClean(cpusNeeded / (MAX_LOADER_CPU * vcpus)));
  return {
    protocol,
    instanceType,
    vcpus,
    cpuMsPerThousandOps: binding.cpuMsPerThousandOps,
    perVcpuFactor: fam.perVcpuFactor,
    basis: fam.basis,
    cpuMsPerOp,
    cpusNeeded,
    loaders,
    utilisation: cpusNeeded / (loaders * vcpus),
  };
}

const n = (x: number) => x.toLocaleString('en-US');
const f = (x: number, d = 1) => x.toLocaleString('en-US', { maximumFractionDigits: d });

function cpuWhy(c: CpuSizing, ops: number): string {
  return (
    `${n(ops)} ops/s × ${f(c.cpuMsPerOp, 4)} CPU-ms per op (${f(c.cpuMsPerThousandOps)} CPU-ms per 1,000 ops ` +
    `measured × ${c.perVcpuFactor} per ${c.instanceType.split('.')[0]} vCPU, ${c.basis === 'estimate' ? 'an estimate' : 'measured'}) ` +
    `= ${f(c.cpusNeeded)} vCPUs busy; at ≤ ${LOADER_CPU_SUSPECT_PCT} % of the ${c.vcpus} vCPUs of a ${c.instanceType}`
  );
}

/**
 * Sizes a target's loaders. `book` gives the CPU figures (default: the newest built-in price book); a book
 * without `loaderCpu` sizes for concurrency only.
 */
export function sizeTarget(
  spec: RunSpec,
  target: Target,
  maxTargetOpsPerSec: number,
  book: Pick<PriceBook, 'id' | 'loaderCpu'> = loadPriceBook(),
): TargetSizing {
  const { processesPerLoader, threadsPerProcess, headroom, count, instanceType } = spec.loaders;
  const latency = expectedLatencyMs(target);
  const required = requiredConcurrency(maxTargetOpsPerSec, latency, headroom);
  const perLoader = processesPerLoader * threadsPerProcess;
  const concurrencyLoaders = Math.max(1, Math.ceil(required / perLoader));
  const c = cpuSizing(book, bindingIdOf(target), instanceType, maxTargetOpsPerSec);
  const cpu = 'note' in c ? null : c;
  const warnings: string[] = [];
  let loaders: number;
  let decidedBy: TargetSizing['decidedBy'];
  if (count === 'auto') {
    decidedBy = cpu && cpu.loaders > concurrencyLoaders ? 'cpu' : 'concurrency';
    loaders = decidedBy === 'cpu' ? cpu!.loaders : concurrencyLoaders;
    if (decidedBy === 'cpu')
      warnings.push(
        `loaders: CPU decides for target "${target.id}": ${cpuWhy(cpu!, maxTargetOpsPerSec)} that is ` +
          `${cpu!.loaders} loaders, more than the ${concurrencyLoaders} that concurrency needs`,
      );
  } else {
    loaders = count;
    decidedBy = 'count';
    const total = loaders * perLoader;
    // an unpaced cell's rate comes from these threads (unpacedOpsPerSec): Little's Law holds by construction
    if (total < required && spec.workload.targetOpsPerSec !== 'max') {
      warnings.push(
        `loaders.count: ${loaders} loaders × ${processesPerLoader} processes × ${threadsPerProcess} threads = ` +
          `${n(total)} concurrent requests, fewer than the ${n(required)} that Little's Law needs for ` +
          `target "${target.id}" (${n(maxTargetOpsPerSec)} ops/s × ${latency} ms` +
          `${headroom !== 1 ? ` × headroom ${headroom}` : ''}); the target throughput may not be reached ` +
          `(use "auto" for ${Math.max(concurrencyLoaders, cpu?.loaders ?? 0)} loaders)`,
      );
    }
    if (cpu && cpu.loaders > loaders)
      warnings.push(
        `loaders.count: ${loaders} loaders are too few for the CPU of target "${target.id}": ` +
          `${cpuWhy(cpu, maxTargetOpsPerSec)} that is ${cpu.loaders} loaders; each of ${loaders} would be at ` +
          `~${f((cpu.cpusNeeded / (loaders * cpu.vcpus)) * 100, 0)} % CPU and its cells suspect ` +
          `(use "auto" for ${Math.max(concurrencyLoaders, cpu.loaders)} loaders)`,
      );
  }
  return {
    maxTargetOpsPerSec,
    expectedLatencyMs: latency,
    headroom,
    requiredConcurrency: required,
    concurrencyLoaders,
    cpu,
    ...('note' in c ? { cpuNote: `${c.note}: sized for concurrency only` } : {}),
    decidedBy,
    loaders,
    processesPerLoader,
    threadsPerProcess,
    totalThreads: loaders * perLoader,
    totalProcesses: loaders * processesPerLoader,
    warnings,
  };
}

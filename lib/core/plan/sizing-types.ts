/** What the planner decides per target (lib/core/plan/sizing.ts computes it). */
import type { BindingId } from '../contract/bindings';

export interface CpuSizing {
  protocol: BindingId;
  instanceType: string;
  vcpus: number;
  /** the binding's measured CPU-ms per 1,000 operations on the measuring machine */
  cpuMsPerThousandOps: number;
  /** CPU time per operation on one of the family's vCPUs ÷ on one measuring-machine CPU */
  perVcpuFactor: number;
  /** whether the family's factor was measured or is an estimate */
  basis: 'measured' | 'estimate';
  /** CPU-ms per operation on this instance type's vCPUs */
  cpuMsPerOp: number;
  /** vCPUs busy at the max target: maxTargetOps × cpuMsPerOp / 1000 */
  cpusNeeded: number;
  /** fewest loaders that keep each at or below MAX_LOADER_CPU */
  loaders: number;
  /** the planned loaders' CPU utilisation, fraction of their vCPUs */
  utilisation: number;
}

export interface TargetSizing {
  maxTargetOpsPerSec: number;
  expectedLatencyMs: number;
  headroom: number;
  requiredConcurrency: number;
  /** fewest loaders whose threads reach requiredConcurrency */
  concurrencyLoaders: number;
  /** sizing by CPU; null when the price book has no figure for this protocol or instance type (see cpuNote) */
  cpu: CpuSizing | null;
  /** why there is no CPU sizing */
  cpuNote?: string;
  /** what decided `loaders`: the larger need with count "auto", else the spec's count */
  decidedBy: 'concurrency' | 'cpu' | 'count';
  loaders: number;
  processesPerLoader: number;
  threadsPerProcess: number;
  totalThreads: number;
  totalProcesses: number;
  warnings: string[];
}

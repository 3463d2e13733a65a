/**
 * Loader sizing by Little's Law: concurrency = throughput × mean latency.
 * requiredConcurrency = ceil(maxTargetOps × expectedLatencyMs / 1000 × headroom).
 */
import { DEFAULT_EXPECTED_LATENCY_MS, type RunSpec, type Target } from '../spec/schema';

export interface TargetSizing {
  maxTargetOpsPerSec: number;
  expectedLatencyMs: number;
  headroom: number;
  requiredConcurrency: number;
  loaders: number;
  processesPerLoader: number;
  threadsPerProcess: number;
  totalThreads: number;
  totalProcesses: number;
  warnings: string[];
}

export function expectedLatencyMs(t: Target): number {
  return t.expectedLatencyMs ?? DEFAULT_EXPECTED_LATENCY_MS[t.kind];
}

/** ceil() that ignores binary noise: 200000 × 6.2 / 1000 is 1240.0000000000002 in floating point. */
export function ceilClean(x: number): number {
  return Math.ceil(Math.round(x * 1e9) / 1e9);
}

export function requiredConcurrency(opsPerSec: number, latencyMs: number, headroom: number): number {
  return ceilClean(((opsPerSec * latencyMs) / 1000) * headroom);
}

const n = (x: number) => x.toLocaleString('en-US');

export function sizeTarget(spec: RunSpec, target: Target, maxTargetOpsPerSec: number): TargetSizing {
  const { processesPerLoader, threadsPerProcess, headroom, count } = spec.loaders;
  const latency = expectedLatencyMs(target);
  const required = requiredConcurrency(maxTargetOpsPerSec, latency, headroom);
  const perLoader = processesPerLoader * threadsPerProcess;
  const warnings: string[] = [];
  let loaders: number;
  if (count === 'auto') {
    loaders = Math.max(1, Math.ceil(required / perLoader));
  } else {
    loaders = count;
    const total = loaders * perLoader;
    if (total < required) {
      warnings.push(
        `loaders.count: ${loaders} loaders × ${processesPerLoader} processes × ${threadsPerProcess} threads = ` +
          `${n(total)} concurrent requests, fewer than the ${n(required)} that Little's Law needs for ` +
          `target "${target.id}" (${n(maxTargetOpsPerSec)} ops/s × ${latency} ms` +
          `${headroom !== 1 ? ` × headroom ${headroom}` : ''}); the target throughput may not be reached ` +
          `(use "auto" for ${Math.ceil(required / perLoader)} loaders)`,
      );
    }
  }
  return {
    maxTargetOpsPerSec,
    expectedLatencyMs: latency,
    headroom,
    requiredConcurrency: required,
    loaders,
    processesPerLoader,
    threadsPerProcess,
    totalThreads: loaders * perLoader,
    totalProcesses: loaders * processesPerLoader,
    warnings,
  };
}

/** Translates SDK v3 errors into the project's errors (ports.ts). */
import { CapacityError, CloudError, ConflictError } from '../core/common/ports';

const CAPACITY = new Set([
  'InsufficientInstanceCapacity',
  'InstanceLimitExceeded',
  'VcpuLimitExceeded',
  'Unsupported',
  'InsufficientCapacity',
  'MaxSpotInstanceCountExceeded',
]);

export function errorName(err: unknown): string {
  const e = err as { name?: string; Code?: string; code?: string };
  return e?.name ?? e?.Code ?? e?.code ?? 'Error';
}

export function translate(service: string, action: string, err: unknown): Error {
  const name = errorName(err);
  const msg = `${action}: ${name}: ${(err as Error)?.message ?? String(err)}`;
  if (name === 'ResourceInUseException' || name === 'ConditionalCheckFailedException') {
    return new ConflictError(`${service} ${msg}`, { cause: err });
  }
  if (CAPACITY.has(name)) return new CapacityError(`${service} ${msg}`, { cause: err });
  return new CloudError(service, msg, { cause: err });
}

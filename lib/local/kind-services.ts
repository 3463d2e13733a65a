/**
 * The local mode's per-kind services (Ports.kindServices): the stand-in of each kind among the spec's targets that
 * brings a service of its own, from the registry ./kind-adapters.ts, started with the run and stopped with it.
 */
import type { KindServices } from '../core/common/ports';
import * as KIND_ADAPTERS from './kind-adapters';

/** A kind's local stand-in: its port over local processes, stopped with the run. */
export interface LocalKindService {
  stop(): Promise<void>;
}

export type LocalKindServices = Partial<{ [K in keyof KindServices]: KindServices[K] & LocalKindService }>;

/** Each kind's local stand-in: a kind that declares a service and has no line in ./kind-adapters.ts fails here. */
const LOCAL_KIND_ADAPTERS: {
  [K in keyof KindServices]: new (out: (line: string) => void) => KindServices[K] & LocalKindService;
} = KIND_ADAPTERS;

/** The stand-ins of these kinds (the spec's targets') that bring a service of their own. */
export function startKindServices(kinds: Iterable<string>, out: (line: string) => void): LocalKindServices {
  const adapters: Record<string, new (out: (line: string) => void) => LocalKindService> = LOCAL_KIND_ADAPTERS;
  const services: Record<string, LocalKindService> = {};
  for (const kind of new Set(kinds)) {
    const Adapter = adapters[kind];
    if (Adapter && Object.hasOwn(adapters, kind)) services[kind] = new Adapter(out);
  }
  return services as LocalKindServices;
}

/** Stops every stand-in started. */
export async function stopKindServices(services: LocalKindServices): Promise<void> {
  const started: Record<string, LocalKindService> = services;
  for (const service of Object.values(started)) await service.stop();
}

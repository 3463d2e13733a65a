/**
 * The spec modules of the target kinds (./kind-specs.ts, one line per kind), in the order they declare: the
 * spec schema (lib/core/spec/schema.ts) builds its `Target` union and the default expected latencies from them.
 * Kept apart from the kind registry (./registry.ts), whose declarations import the spec schema's types: the spec
 * modules import nothing but zod and the shared fields, so the schema never imports a kind's code.
 */
import * as KIND_SPECS from './kind-specs';

type Specs = typeof KIND_SPECS;
/** A kind's name, as the spec modules' list names it (its schema's `kind` literal). */
export type SpecKindName = keyof Specs;
type TargetSchema = Specs[SpecKindName]['schema'];

/** The kinds' names and spec modules, in their declared order (a module's exports come in no order one can rely on). */
const ORDERED = (Object.entries(KIND_SPECS) as [SpecKindName, Specs[SpecKindName]][]).sort(
  ([, a], [, b]) => a.order - b.order,
);

/** The kinds' names, in their specs' order: what the registry (./registry.ts) lists the kinds in. */
export const KIND_NAMES: readonly SpecKindName[] = ORDERED.map(([kind]) => kind);

/** The kinds' spec modules, in their order. */
export const TARGET_SPECS: readonly Specs[SpecKindName][] = ORDERED.map(([, s]) => s);

/** The kinds' target schemas, in their order (what z.discriminatedUnion takes). */
export const TARGET_SCHEMAS = TARGET_SPECS.map((s) => s.schema) as [TargetSchema, ...TargetSchema[]];

/** The mean latency (ms) loader sizing assumes for a target of each kind that does not give `expectedLatencyMs`. */
export const DEFAULT_EXPECTED_LATENCY_MS = Object.fromEntries(
  ORDERED.map(([kind, s]) => [kind, s.expectedLatencyMs]),
) as { readonly [K in SpecKindName]: number };

/**
 * The constructs of the target kinds that bring a service of their own (Ports.kindServices,
 * lib/core/common/ports.ts): one line per kind, `export { <construct> as <kind> } from './<kind>-access'`. The stack
 * adds each (./kind-access.ts); a kind whose port module declares a service and has no line here fails to compile.
 */
export { MemoryDbAccess as memorydb } from './memorydb-access';
// (a module even when no kind has a line here)
export {};

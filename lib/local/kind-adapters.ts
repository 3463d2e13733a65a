/**
 * The local stand-ins of the target kinds that bring a service of their own (Ports.kindServices,
 * lib/core/common/ports.ts): one line per kind, `export { <class> as <kind> } from './<kind>'`. The local runner starts
 * the stand-in of each kind among the spec's targets (lib/local/runner.ts reads this registry as a whole; a kind whose
 * port module declares a service and has no line here fails to compile there).
 */
export { LocalMemoryDb as memorydb } from './memorydb';
// (a module even when no kind has a line here)
export {};

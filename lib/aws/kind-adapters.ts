/**
 * The AWS adapters of the target kinds that bring a service of their own (Ports.kindServices, lib/core/common/ports.ts):
 * one line per kind, `export { <factory> as <kind> } from './<kind>-admin'`. Each factory builds its adapter from the
 * Lambda's environment, or gives undefined where the stack set none (lambdas/shared/env.ts reads this registry as a
 * whole; a kind whose port module declares a service and has no line here fails to compile there).
 */
export { memoryDbAdminFromEnv as memorydb } from './memorydb-admin';
// (a module even when no kind has a line here)
export {};

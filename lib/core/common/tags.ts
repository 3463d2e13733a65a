/** Tags, and the tag keys the pipeline puts on everything it creates (a leaf: every layer of the core reads it). */

/** Tags as key → value. */
export type Tags = Record<string, string>;

/** Tag keys the pipeline puts on everything it creates (the janitor and teardown find things by them). */
export const TAG_RUN_ID = 'fleetbench:run-id';
/** Epoch seconds after which the janitor may delete the resource. */
export const TAG_EXPIRES_AT = 'fleetbench:expires-at';
export const TAG_SPEC = 'fleetbench:spec';
export const TAG_ROLE = 'fleetbench:role';

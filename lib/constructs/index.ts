export * from './benchmark-function';
export * from './results-lake';
export * from './loader-fleet';
export * from './benchmark-state-machine';
export * from './monitoring';
export * from './janitor';
export * from './abort-rule';
export * from './schedules';

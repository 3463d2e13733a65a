export * from './schema';
export { validateSpec, parseSpecText, type Validated } from './validate';
export {
  operationMixes,
  distributionsOf,
  distributionInfo,
  throughputSteps,
  throughputTargets,
  isUnpaced,
  type ThroughputTarget,
  BASE_WORKLOADS,
} from './workload';

export * from './schema';
export { validateSpec, parseSpecText, type Validated } from './validate';
export {
  operationMixes,
  distributionsOf,
  distributionInfo,
  throughputSteps,
  BASE_WORKLOADS,
} from './workload';

/** Powertools objects, built once per container. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

export const serviceName = 'fleetbench';
export const logger = new Logger({ serviceName });
export const metrics = new Metrics({ serviceName, namespace: 'FleetbenchPipeline' });
export const tracer = new Tracer({ serviceName });

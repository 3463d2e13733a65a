/**
 * Wraps one pipeline step as a Lambda handler: logger context, the step's operational metrics,
 * errors logged and re-thrown with their own name (the state machine's Catch sees `StepFailedError`,
 * `InputError`, ...).
 */
import type { Context } from 'aws-lambda';
import type { Ports } from '../../lib/core/common/ports';
import { awsPorts } from './env';
import { logger, metrics } from './powertools';

let ports: Ports | undefined;

export function stepHandler<E, R>(step: string, fn: (event: E, ports: Ports) => Promise<R>) {
  return async (event: E, context?: Context): Promise<R> => {
    if (context) logger.addContext(context);
    logger.appendKeys({ step });
    ports ??= awsPorts();
    try {
      const result = await fn(event, ports);
      metrics.addMetric(`${step}Succeeded`, 'Count', 1);
      logger.info('step done', { result: result as unknown as Record<string, unknown> });
      return result;
    } catch (err) {
      metrics.addMetric(`${step}Failed`, 'Count', 1);
      logger.error('step failed', err as Error);
      throw err;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

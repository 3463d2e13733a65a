import { aggregateCellStep } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('AggregateCell', (event: { run: unknown; index: number }, p) =>
  aggregateCellStep(event, p),
);

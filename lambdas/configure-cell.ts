import { configureCell } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('ConfigureCell', (event: { run: unknown; index: number }, p) =>
  configureCell(event, p),
);

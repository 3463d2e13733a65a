import { provisionTarget } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('ProvisionTarget', (event: { run: unknown }, p) =>
  provisionTarget(event.run, p),
);

import { provisionFleet } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('ProvisionFleet', (event: { run: unknown }, p) =>
  provisionFleet(event.run, p),
);

import { report } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('Report', (event: { run: unknown; targetTeardowns?: unknown }, p) =>
  report(
    { run: event.run, targetTeardowns: event.targetTeardowns, region: process.env.AWS_REGION ?? null },
    p,
  ),
);

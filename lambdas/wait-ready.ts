import { waitReady, type ReadyState } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler(
  'WaitReady',
  (event: { run: unknown; ready?: Partial<ReadyState> | null }, p) => waitReady(event, p),
);

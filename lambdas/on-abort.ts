/** EventBridge: an execution ended FAILED / TIMED_OUT / ABORTED (Catch does not run on abort). */
import { teardown } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

interface StatusChange {
  detail: {
    name: string;
    status: string;
    executionArn: string;
    cause?: string | null;
    error?: string | null;
  };
}

export const handler = stepHandler('OnAbort', (event: StatusChange, p) =>
  teardown(
    {
      executionName: event.detail.name,
      status: event.detail.status,
      error: { Error: event.detail.error ?? event.detail.status, Cause: event.detail.cause ?? '' },
    },
    p,
  ),
);

import { STEPS } from '../lib/core/pipeline';
import type { Ports } from '../lib/core/common/ports';
import { stepHandler } from './shared/handler';

type Event = Parameters<typeof STEPS.teardown>[0] & { target?: number };

/** Teardown, TeardownAfterFailure and (with a target index) TeardownTarget share this function and its grants. */
export const handler = stepHandler<Event, unknown>('Teardown', (e: Event, p: Ports) =>
  e.target === undefined ? STEPS.teardown(e, p) : STEPS.teardownTarget({ run: e.run, target: e.target }, p),
);

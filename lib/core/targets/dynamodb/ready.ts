/** A DAX cluster takes 10+ minutes to create: WaitReady waits longer for a run with one, polled less often. */
export const DAX_READY_TIMEOUT_SECONDS = 40 * 60;
export const DAX_READY_POLL_SECONDS = 60;

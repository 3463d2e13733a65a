/** Waits `ms` milliseconds (the steps' polls; tests pass a fake instead). */
export const realSleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms));

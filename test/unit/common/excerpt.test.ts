import { failureExcerpt } from '../../../lib/core/common/excerpt';

// what the loader agent writes to stderr when a cell's YCSB process dies before writing its summary: the cause
// first, then lines of context (JVM output, file names) that pushed it out of a fixed 200-character tail
const agentStderr = [
  'agent: error: process 1 of job cell-3: The summary (summary.json was not written) after YCSB exited 137',
  ...Array.from(
    { length: 12 },
    (_, i) => `  at /opt/fleetbench/runs/r-1/cells/c-3/proc-${i}/stdout.log: [OVERALL] line ${i}`,
  ),
  'agent: uploading raw outputs to s3://bucket/runs/r-1/cells/c-3/raw/ (3 files)',
].join('\n');

describe('failureExcerpt', () => {
  it('keeps the first cause whole and the end of the text, within the limit, cut at word boundaries', () => {
    const x = failureExcerpt(agentStderr, 300);
    expect(x.length).toBeLessThanOrEqual(300);
    expect(
      x.startsWith('agent: error: process 1 of job cell-3: The summary (summary.json was not written)'),
    ).toBe(true);
    expect(x.endsWith('(3 files)')).toBe(true);
    expect(x).toContain(' … ');
    // every word is whole: each piece of the tail starts at a word of the text
    const tail = x.split(' … ')[1]!;
    expect(agentStderr.replace(/\n/g, ' | ').replace(/\s+/g, ' ')).toContain(tail);
    expect(tail[0]).not.toMatch(/[a-z]/); // not half a word ("e summary")
  });

  it('the issue case: a fixed 200-character tail lost the cause; the excerpt keeps it', () => {
    expect(agentStderr.slice(-200)).not.toContain('summary.json was not written');
    expect(failureExcerpt(agentStderr, 200)).toContain('summary.json was not written');
  });

  it('a short detail stays as it is (its lines joined), a cause after context lines is still found first', () => {
    expect(failureExcerpt('Killed\n', 400)).toBe('Killed');
    expect(failureExcerpt('a\nb', 400)).toBe('a | b');
    const late = [
      'starting JVM',
      'loading site.ycsb',
      'x'.repeat(300),
      'Exception in thread "main" java.lang.OutOfMemoryError',
    ].join('\n');
    expect(failureExcerpt(late, 120)).toMatch(/^Exception in thread "main" java\.lang\.OutOfMemoryError/);
  });

  it('a single long line is cut after a whole word, with an ellipsis', () => {
    const x = failureExcerpt(`error: ${'word '.repeat(200)}`, 100);
    expect(x.length).toBeLessThanOrEqual(100);
    expect(x).toMatch(/^error: (word )+word…$|^error: (word )*word…/);
  });
});

describe('CheckCell names a failed loader with the first cause of its output', () => {
  it('the message keeps the cause the loader wrote first, not half a word of the end', async () => {
    const { checkPhase } = await import('../../../lib/core/pipeline/phase');
    const cancelled: string[][] = [];
    const commands = {
      online: async () => [],
      send: async () => [],
      cancel: async (ids: string[]) => void cancelled.push(ids),
      status: async () => [
        { commandId: 'c1', instanceId: 'i-1', status: 'Success' as const },
        { commandId: 'c1', instanceId: 'i-2', status: 'Failed' as const, detail: agentStderr },
      ],
    };
    const job = {
      phase: 'run' as const,
      index: 0,
      commandIds: ['c1'],
      instances: 2,
      startedAtMs: 0,
      expectedEndMs: 10_000,
      deadlineMs: 20_000,
      waitSeconds: 10,
      done: false,
    };
    const err = await checkPhase(job, { commands, clock: { nowMs: () => 5_000 } }).catch((e: Error) => e);
    expect((err as Error).message).toContain(
      'failed on 1 of 2 loaders: i-2 Failed (agent: error: process 1 of job cell-3: The summary (summary.json was not written)',
    );
    expect(cancelled).toEqual([['c1']]);
  });
});

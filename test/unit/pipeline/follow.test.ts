import { GetExecutionHistoryCommand, SFNClient, type HistoryEvent } from '@aws-sdk/client-sfn';
import { SfnExecutions } from '../../../lib/aws/sfn-executions';
import {
  ProgressPrinter,
  defaultExecutionName,
  executionState,
  loopPosition,
  nextPollMs,
  runIdFromExecutionName,
  type ExecutionEvent,
} from '../../../lib/core/pipeline';

const T0 = Date.UTC(2026, 10, 22, 18, 40, 0);
const ev = (id: number, type: string, sec: number, extra: Partial<ExecutionEvent> = {}): ExecutionEvent => ({
  id,
  type,
  timestampMs: T0 + sec * 1000,
  ...extra,
});
const cellInput = (index: number, cellCount: number) =>
  JSON.stringify({ run: { cellCount }, cursor: { index } });

describe('ProgressPrinter', () => {
  it('Task states: a line on entry (with the cell position) and one on exit with the duration', () => {
    const p = new ProgressPrinter();
    const lines = p.lines([
      ev(10, 'TaskStateEntered', 0, { state: 'StartCell', data: cellInput(2, 6) }),
      ev(11, 'TaskScheduled', 0),
      ev(12, 'TaskSucceeded', 1),
      ev(13, 'TaskStateExited', 1.5, { state: 'StartCell', data: '{}' }),
      ev(14, 'WaitStateEntered', 1.5, {
        state: 'WaitCell',
        data: JSON.stringify({ run: { cellCount: 6 }, cursor: { index: 2 }, job: { waitSeconds: 60 } }),
      }),
      ev(15, 'ChoiceStateEntered', 2, { state: 'CellDone?', data: cellInput(2, 6) }),
      ev(16, 'ChoiceStateExited', 2, { state: 'CellDone?' }),
    ]);
    expect(lines).toEqual([
      '18:40:00  > StartCell  cell 3 of 6',
      '18:40:01  < StartCell  1.5 s',
      '18:40:01  > WaitCell  cell 3 of 6  (waiting 60 s)',
      '18:40:02  · CellDone?  cell 3 of 6',
    ]);
  });

  it('a Task failure and the end of the execution carry error and cause', () => {
    const p = new ProgressPrinter();
    expect(
      p.lines([
        ev(20, 'TaskFailed', 3, { error: 'StepFailedError', cause: 'CheckCell: loader\ni-2 exit 1' }),
        ev(30, 'ExecutionFailed', 9, { error: 'StepFailedError', cause: 'CheckCell: loader i-2 exit 1' }),
      ]),
    ).toEqual([
      '18:40:03    failed: StepFailedError: CheckCell: loader i-2 exit 1',
      '18:40:09  execution FAILED: StepFailedError: CheckCell: loader i-2 exit 1',
    ]);
  });

  it('load positions name the target', () => {
    expect(
      loopPosition(
        'StartLoad',
        JSON.stringify({ run: { loadCount: 2, loadTargets: ['a', 'b'] }, cursor: { index: 1 } }),
      ),
    ).toBe('load 2 of 2 (b)');
    expect(loopPosition('Report', cellInput(0, 1))).toBe('');
    expect(loopPosition('StartCell', 'not json')).toBe('');
  });
});

describe('executionState', () => {
  it('the innermost open state is current; the last exited is last', () => {
    const s = executionState([
      ev(5, 'ParallelStateEntered', 0, { state: 'Provision' }),
      ev(6, 'TaskStateEntered', 0, { state: 'ProvisionTarget' }),
      ev(7, 'TaskStateExited', 2, { state: 'ProvisionTarget' }),
      ev(8, 'TaskStateEntered', 2, { state: 'ProvisionFleet' }),
    ]);
    expect(s.current?.state).toBe('ProvisionFleet');
    expect(s.last?.state).toBe('ProvisionTarget');
  });
});

describe('polling and names', () => {
  it('adaptive polling: doubles while nothing happens, back to the minimum on news, capped', () => {
    let w = 1000;
    const seq: number[] = [];
    for (let i = 0; i < 7; i++) seq.push((w = nextPollMs(w, false)));
    expect(seq).toEqual([2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(nextPollMs(30000, true)).toBe(1000);
  });

  it('default execution names are their own run id, at most 40 characters, with the UTC time', () => {
    const n = defaultExecutionName('quickstart', Date.UTC(2026, 10, 22, 18, 40, 1));
    expect(n).toBe('quickstart-20261122-184001');
    expect(runIdFromExecutionName(n)).toBe(n);
    const long = defaultExecutionName('a-very-long-spec-name-that-goes-on-and-on', T0);
    expect(long.length).toBeLessThanOrEqual(40);
    expect(long).toMatch(/-20261122-184000$/);
    expect(runIdFromExecutionName(long)).toBe(long);
  });

  it('two execution names never share a run id (a shared id would let one teardown remove the other run)', () => {
    const a = 'nightly-regression-scylla-vs-dynamodb-2026-11-22-a';
    const b = 'nightly-regression-scylla-vs-dynamodb-2026-11-22-b';
    const [ia, ib] = [runIdFromExecutionName(a), runIdFromExecutionName(b)];
    expect(ia).not.toBe(ib);
    for (const id of [ia, ib]) expect(id).toMatch(/^nightly-regression-scylla-vs-dy-[0-9a-f]{8}$/);
    // normalising case or '_' is lossy too: hashed, so "Run_1" and "run-1" differ
    expect(runIdFromExecutionName('Run_1')).not.toBe(runIdFromExecutionName('run-1'));
    expect(runIdFromExecutionName('run-1')).toBe('run-1');
    expect(runIdFromExecutionName('Run_1')).toBe(runIdFromExecutionName('Run_1'));
    expect(() => runIdFromExecutionName('___')).toThrow(/executionName/);
  });
});

describe('SfnExecutions.eventsSince (pagination; moto ignores reverseOrder and maxResults, so a stub client here)', () => {
  it('reads newest pages first and stops at the first page that reaches a seen event', async () => {
    // 250 events, pages of 100 newest first
    const all: HistoryEvent[] = Array.from({ length: 250 }, (_, i) => ({
      id: i + 1,
      type: 'PassStateEntered',
      timestamp: new Date(T0 + i),
      stateEnteredEventDetails: { name: `S${i + 1}` },
    }));
    const calls: { nextToken?: string; reverseOrder?: boolean }[] = [];
    const client = new SFNClient({ region: 'us-east-1' });
    client.send = (async (cmd: GetExecutionHistoryCommand) => {
      calls.push({ nextToken: cmd.input.nextToken, reverseOrder: cmd.input.reverseOrder });
      const start = cmd.input.nextToken ? Number(cmd.input.nextToken) : 0;
      const newestFirst = [...all].reverse();
      const page = newestFirst.slice(start, start + cmd.input.maxResults!);
      const next =
        start + cmd.input.maxResults! < all.length ? String(start + cmd.input.maxResults!) : undefined;
      return { events: page, nextToken: next };
    }) as never;
    const x = new SfnExecutions(client);
    const since120 = await x.eventsSince('arn:aws:states:us-east-1:1:execution:m:e', 120);
    expect(since120.map((e) => e.id)).toEqual(Array.from({ length: 130 }, (_, i) => 121 + i));
    expect(calls).toEqual([
      { nextToken: undefined, reverseOrder: true },
      { nextToken: '100', reverseOrder: true },
    ]);
    calls.length = 0;
    expect(await x.eventsSince('arn:aws:states:us-east-1:1:execution:m:e', 250)).toEqual([]);
    expect(calls).toHaveLength(1);
    expect((await x.eventsSince('arn:aws:states:us-east-1:1:execution:m:e', 0)).length).toBe(250);
  });
});

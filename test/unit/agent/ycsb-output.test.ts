/**
 * Parsing YCSB 0.17.0 output; the literal lines are real output of YCSB 0.17.0 (status lines from its StatusThread,
 * https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/StatusThread.java).
 */
import { judgeProcess, opTotals, parseStatusLine } from '../../../loader/agent/src/ycsb-output';
import {
  operationCounts,
  parseSummary,
  returnCounts,
  type YcsbSummary,
} from '../../../lib/core/contract/summary';
import { toPropertiesText } from '../../../loader/agent/src/properties';
import { ProgressTracker, formatEmf, formatPlain, progressMetrics } from '../../../loader/agent/src/progress';

const RUN_LINE =
  '2026-11-22 10:06:34:401 1 sec: 1989 operations; 1981 current ops/sec; est completion in 1 second [READ: Count=992, Max=4987, Min=0, Avg=620.9, 90=1132, 99=2679, 99.9=4399, 99.99=4987] [UPDATE: Count=862, Max=6243, Min=0, Avg=594.86, 90=1131, 99=2647, 99.9=5703, 99.99=6243] [Intended-READ: Count=869, Max=21311, Min=47, Avg=1270.68, 90=1877, 99=13839, 99.9=20463, 99.99=21311] [Intended-UPDATE: Count=849, Max=19919, Min=61, Avg=1307.57, 90=2465, 99=15831, 99.9=19343, 99.99=19919] ';
const FIRST_LINE =
  '2026-11-22 10:06:24:633 0 sec: 170 operations; ∞ current ops/sec; est completion in 0 second [INSERT: Count=189, Max=10175, Min=0, Avg=752.43, 90=1167, 99=6183, 99.9=10175, 99.99=10175] ';

describe('status lines', () => {
  test('run-phase line with four measurements', () => {
    const s = parseStatusLine(RUN_LINE);
    expect(s).toBeDefined();
    expect(s!.elapsedSeconds).toBe(1);
    expect(s!.totalOps).toBe(1989);
    expect(s!.currentOpsPerSec).toBe(1981);
    expect(Object.keys(s!.ops)).toEqual(['READ', 'UPDATE', 'Intended-READ', 'Intended-UPDATE']);
    expect(s!.ops.READ).toEqual({
      count: 992,
      maxUs: 4987,
      minUs: 0,
      avgUs: 620.9,
      p90Us: 1132,
      p99Us: 2679,
      p999Us: 4399,
      p9999Us: 4987,
    });
    expect(s!.ops['Intended-UPDATE'].p99Us).toBe(15831);
  });

  test('first line: infinite current throughput', () => {
    const s = parseStatusLine(FIRST_LINE)!;
    expect(s.currentOpsPerSec).toBe(Infinity);
    expect(s.ops.INSERT.count).toBe(189);
    expect(s.ops.INSERT.p99Us).toBe(6183);
  });

  test('label prefix, no current throughput (0 ops), no fragments', () => {
    const s = parseStatusLine(
      'loader-1 2026-11-22 10:06:24:633 0 sec: 0 operations; est completion in 3 seconds ',
    )!;
    expect(s.totalOps).toBe(0);
    expect(s.currentOpsPerSec).toBeUndefined();
    expect(s.ops).toEqual({});
  });

  test('other stderr lines are not status lines', () => {
    for (const l of [
      'YCSB Client 0.17.0',
      'Loading workload...',
      'Starting test.',
      'Maximum execution time specified as: 20 secs',
    ]) {
      expect(parseStatusLine(l)).toBeUndefined();
    }
  });
});

const summaryOf = (entries: [string, string, number][]): string =>
  JSON.stringify(entries.map(([metric, measurement, value]) => ({ metric, measurement, value })));

describe('summary', () => {
  const text = summaryOf([
    ['OVERALL', 'RunTime(ms)', 1509],
    ['OVERALL', 'Throughput(ops/sec)', 1988.0715705765408],
    ['TOTAL_GCs', 'Count', 0],
    ['READ', 'Operations', 17],
    ['READ', 'Return=OK', 17],
    ['READ', 'Return=NOT_FOUND', 2],
    ['READ', 'Return=ERROR', 1],
    ['READ-FAILED', 'Operations', 3],
    ['CLEANUP', 'Operations', 4],
    ['UPDATE', 'Return=OK', 10],
    ['Intended-READ', 'Operations', 17],
  ]);

  test('counts by op/status and measurement operations', () => {
    const s = parseSummary(text, 'summary.json');
    expect(s.runtimeMs).toBe(1509);
    expect(returnCounts(s)).toEqual({ READ: { OK: 17, NOT_FOUND: 2, ERROR: 1 }, UPDATE: { OK: 10 } });
    expect(operationCounts(s)).toEqual({ READ: 17, 'READ-FAILED': 3, CLEANUP: 4, 'Intended-READ': 17 });
    expect(opTotals(s)).toEqual({
      total: 30,
      operations: 30,
      ok: 27,
      errors: 1,
      byStatus: { OK: 27, NOT_FOUND: 2, ERROR: 1 },
    });
  });

  test('a read-modify-write is one operation, though its read and update are two requests', () => {
    // workload F as YCSB 0.17.0 reports it: 50 reads, 50 read-modify-writes (each a READ and an UPDATE request)
    const f = parseSummary(
      [
        '[OVERALL], RunTime(ms), 1000',
        '[READ], Operations, 100',
        '[READ], Return=OK, 100',
        '[UPDATE], Operations, 50',
        '[UPDATE], Return=OK, 50',
        '[READ-MODIFY-WRITE], Operations, 50',
      ].join('\n'),
      'summary.txt',
    );
    expect(opTotals(f)).toMatchObject({ total: 150, operations: 100, ok: 150 });
  });

  test('a summary that is not YCSB output -> error naming the file', () => {
    expect(() => parseSummary('[{} {}]', 'summary.json')).toThrow(
      /^summary\.json: summary is not valid JSON/,
    );
    expect(() => parseSummary('{}', 'summary.json')).toThrow(/^summary\.json: no "\[METRIC\]/);
  });
});

/** A summary holding only these `Return=` counts. */
const returning = (returns: Record<string, Record<string, number>>): YcsbSummary => ({
  ops: Object.fromEntries(Object.entries(returns).map(([op, r]) => [op, { returns: r }])),
});

describe('judging a process', () => {
  const ok = returning({ READ: { OK: 100 }, UPDATE: { OK: 90, ERROR: 10 } });
  const base = { phase: 'run' as const, exitCode: 0, signal: null, maxErrorFraction: 0.5 };

  test('healthy', () => {
    expect(judgeProcess({ ...base, summary: ok })).toBeUndefined();
  });
  test('exit code 0 but every op failed', () => {
    expect(judgeProcess({ ...base, summary: returning({ READ: { ERROR: 5 } }) })).toBe(
      'all 5 database calls failed (ERROR=5)',
    );
  });
  test('ERROR dominating', () => {
    const r = judgeProcess({ ...base, summary: returning({ READ: { OK: 4, ERROR: 6 } }) });
    expect(r).toMatch(/^6 of 10 database calls returned an error/);
  });
  test('throttles and not-found are outcomes, not errors', () => {
    const s = returning({ READ: { OK: 1, THROTTLED: 50, NOT_FOUND: 50 } });
    expect(judgeProcess({ ...base, summary: s })).toBeUndefined();
  });
  test('no summary / no operations / exit code / deadline', () => {
    expect(judgeProcess({ ...base, summary: { error: 'summary.json was not written' } })).toBe(
      'no usable summary (summary.json was not written)',
    );
    expect(judgeProcess({ ...base, summary: returning({ CLEANUP: { OK: 4 } }) })).toBe(
      'no database calls were executed',
    );
    expect(judgeProcess({ ...base, exitCode: 1, summary: ok })).toBe('exit code 1');
    expect(judgeProcess({ ...base, exitCode: 143, killed: 'deadline', summary: { error: 'x' } })).toBe(
      'killed at the deadline; exit code 143; no usable summary (x)',
    );
  });
  test('load phase: every expected insert must succeed', () => {
    const s = returning({ INSERT: { OK: 9990, ERROR: 1 } });
    expect(judgeProcess({ ...base, phase: 'load', expectedInserts: 10000, summary: s })).toBe(
      'inserted 9990 of 10000 records',
    );
    expect(judgeProcess({ ...base, phase: 'load', expectedInserts: 9990, summary: s })).toBeUndefined();
  });
  test('load phase: batched inserts (BATCHED_OK) count as inserted', () => {
    const s = returning({ INSERT: { OK: 400, BATCHED_OK: 9600 } });
    expect(judgeProcess({ ...base, phase: 'load', expectedInserts: 10000, summary: s })).toBeUndefined();
    expect(judgeProcess({ ...base, phase: 'load', expectedInserts: 10001, summary: s })).toBe(
      'inserted 10000 of 10001 records',
    );
  });
});

describe('progress', () => {
  test('sums ops/s of fresh lines and keeps the worst p99 per op', () => {
    const t = new ProgressTracker(1000);
    t.add(0, parseStatusLine(RUN_LINE)!);
    t.add(1, parseStatusLine(RUN_LINE.replace('1981 current', '19 current').replace('99=2679', '99=9000'))!);
    const r = t.take(11000, 2);
    expect(r.opsPerSec).toBe(2000);
    expect(r.totalOps).toBe(3978);
    expect(r.reporting).toBe(2);
    expect(r.ops.READ).toEqual({ count: 1984, p99MaxUs: 9000 });
    expect(t.freshCount()).toBe(0);
    const ctx = { runId: 'r', cellId: 'c', loaderIndex: 3, phase: 'run' as const, processCount: 2 };
    expect(formatPlain(ctx, r)).toBe(
      '[progress] run=r cell=c loader=3 phase=run t=10s procs=2/2 ops/s=2000 total=3978 | READ 1984 p99<=9000us, UPDATE 1724 p99<=2647us',
    );
    // on stdout (`--progress emf`), the metrics the agent puts with PutMetricData (`cloudwatch`): one definition,
    // in the namespace the loader role may write to (lib/constructs/loader-fleet.ts: cloudwatch:namespace Fleetbench)
    const emf = JSON.parse(formatEmf(ctx, r));
    const put = progressMetrics(ctx, r);
    expect(emf._aws.Timestamp).toBe(11000);
    expect(emf._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Fleetbench',
        Dimensions: [['RunId', 'CellId', 'Phase']],
        Metrics: put.data.map((d) => ({ Name: d.name, Unit: d.unit })),
      },
    ]);
    expect(put.data.map((d) => d.name)).toEqual([
      'LoaderOpsPerSecond',
      'LoaderP99Us_Intended-READ',
      'LoaderP99Us_Intended-UPDATE',
      'LoaderP99Us_READ',
      'LoaderP99Us_UPDATE',
    ]);
    // every metric named in the EMF directive has a value at the top level (EMF requirement)
    for (const d of put.data) expect([d.name, emf[d.name]]).toEqual([d.name, d.value]);
    for (const [k, v] of Object.entries(put.dimensions)) expect(emf[k]).toBe(v);
    expect(emf.LoaderOpsPerSecond).toBe(2000);
    expect(emf.LoaderP99Us_READ).toBe(9000);
  });
});

describe('properties text', () => {
  test('escapes separators, leading spaces, non-ASCII; integers without exponent', () => {
    expect(toPropertiesText({ 'a.b': 'x=y:z', c: ' lead', d: 'é', e: 2000000000, f: true, g: 0.5 })).toBe(
      'a.b=x\\=y\\:z\nc=\\ lead\nd=\\u00e9\ne=2000000000\nf=true\ng=0.5\n',
    );
  });
});

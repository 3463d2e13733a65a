/**
 * The one YCSB summary parser (lib/core/contract/summary.ts), read against real YCSB 0.17.0 output:
 * test/fixtures/ycsb/fleet-small (test/oracle/gen-ycsb-fixtures.sh) and test/fixtures/ycsb/repeated-return
 * (test/oracle/gen-ycsb-repeated-return.sh), whose summaries repeat `[OP], Return=SERVICE_UNAVAILABLE`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { operationCounts, parseSummary, returnCounts } from '../../../lib/core/contract/summary';
import { InputError } from '../../../lib/core/common/errors';
import { opTotals } from '../../../loader/agent/src/ycsb-output';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');
const REPEATED = path.join(__dirname, '../../fixtures/ycsb/repeated-return');

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError');
}

/** `[OP], Return=STATUS, n` lines of the text as YCSB wrote them, in file order. */
function returnLines(text: string, op: string): [string, number][] {
  return [...text.matchAll(new RegExp(`^\\[${op}\\], Return=([A-Z_]+), (\\d+)$`, 'gm'))].map(
    (m) => [m[1]!, Number(m[2])] as [string, number],
  );
}

describe('YCSB summaries', () => {
  it('reads the JSON array exporter output', () => {
    const f = path.join(FIXTURE, 'loader-0/proc-0/summary.json');
    const s = parseSummary(fs.readFileSync(f, 'utf8'), f);
    expect(s.runtimeMs).toBeGreaterThan(7000);
    expect(s.throughput).toBeGreaterThan(0);
    const read = s.ops.READ;
    // [READ], Operations counts successes only; attempted = Σ Return=
    expect(read.operations).toBe(read.returns.OK);
    expect(s.ops['READ-FAILED'].operations).toBe(
      Object.entries(read.returns)
        .filter(([k]) => k !== 'OK')
        .reduce((a, [, v]) => a + v, 0),
    );
  });

  it('reads the text exporter output the same way', () => {
    const f = path.join(FIXTURE, 'loader-1/proc-1/summary.txt');
    const s = parseSummary(fs.readFileSync(f, 'utf8'), f);
    expect(s.ops.UPDATE.operations).toBe(s.ops.UPDATE.returns.OK);
    expect(Object.keys(s.ops.READ.returns).sort()).toEqual(['ERROR', 'NOT_FOUND', 'OK', 'THROTTLED']);
    // runtime × throughput ≈ Σ operations of all types (OVERALL counts failed ones too)
    const attempted = ['READ', 'UPDATE']
      .map((op) => Object.values(s.ops[op].returns).reduce((a, b) => a + b, 0))
      .reduce((a, b) => a + b, 0);
    expect(Math.round((s.runtimeMs! * s.throughput!) / 1000)).toBe(attempted);
  });

  it('malformed summaries name the file and entry', () => {
    expect(inputError(() => parseSummary('[{"metric": "READ"', 's.json')).message).toMatch(
      /s\.json: summary is not valid JSON/,
    );
    expect(
      inputError(() => parseSummary('[{"metric":"READ","measurement":"Operations","value":"x"}]', 's.json'))
        .issues[0].path,
    ).toBe('s.json[0].value');
    expect(inputError(() => parseSummary('', 's.txt')).message).toMatch(/empty/);
    expect(inputError(() => parseSummary('hello\n', 's.txt')).message).toMatch(/no "\[METRIC\]/);
  });
});

describe('repeated Return= lines (real YCSB output)', () => {
  for (const file of ['summary.txt', 'summary.json']) {
    it(`${file}: two SERVICE_UNAVAILABLE lines per op are summed`, () => {
      const f = path.join(REPEATED, file);
      const text = fs.readFileSync(f, 'utf8');
      const s = parseSummary(text, f);
      // the fixture really repeats the line (else this test proves nothing)
      const lines =
        file === 'summary.txt'
          ? returnLines(text, 'READ')
          : (JSON.parse(text) as { metric: string; measurement: string; value: number }[])
              .filter((e) => e.metric === 'READ' && e.measurement.startsWith('Return='))
              .map((e) => [e.measurement.slice('Return='.length), e.value] as [string, number]);
      const twins = lines.filter(([st]) => st === 'SERVICE_UNAVAILABLE');
      expect(twins).toHaveLength(2);
      expect(s.ops.READ.returns.SERVICE_UNAVAILABLE).toBe(twins[0]![1] + twins[1]![1]);
      // YCSB's own totals, independent of the parser: in the run phase every executed operation counts
      // in [OVERALL] (Throughput × RunTime), and every failed READ is a sample of [READ-FAILED]
      const attempted = opTotals(s).total;
      expect(attempted).toBe(Math.round((s.throughput! * s.runtimeMs!) / 1000));
      const readFailed = Object.entries(s.ops.READ.returns)
        .filter(([st]) => st !== 'OK')
        .reduce((a, [, n]) => a + n, 0);
      expect(s.ops['READ-FAILED'].operations).toBe(readFailed);
      const updateFailed = Object.entries(s.ops.UPDATE.returns)
        .filter(([st]) => st !== 'OK')
        .reduce((a, [, n]) => a + n, 0);
      expect(s.ops['UPDATE-FAILED'].operations).toBe(updateFailed);
    });
  }

  it('the counts helpers keep every measurement with the line', () => {
    const f = path.join(REPEATED, 'summary.txt');
    const s = parseSummary(fs.readFileSync(f, 'utf8'), f);
    expect(Object.keys(returnCounts(s)).sort()).toEqual(['READ', 'UPDATE']);
    expect(operationCounts(s).READ).toBe(s.ops.READ.returns.OK);
    expect(operationCounts(s)['Intended-READ']).toBe(s.ops.READ.returns.OK);
  });
});

/**
 * The V2 decoder and log reader against logs written by HdrHistogram's own Java HistogramLogWriter
 * (the oracle's `write` mode) from known values, and against malformed / V1 input.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Histogram } from '../../../lib/core/hdr/histogram';
import { V2Decoder } from '../../../lib/core/hdr/decode';
import { decodeInterval, parseIntervalLog } from '../../../lib/core/hdr/log';
import { InputError } from '../../../lib/core/common/errors';
import { runOracle } from '../../oracle/oracle';

const FIXTURES = path.join(__dirname, '../../fixtures/ycsb');
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-hdr-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** interval spec lines for the oracle: "offsetMs lengthMs v[xN] ..." */
const INTERVALS: { offsetMs: number; lengthMs: number; values: [number, number][] }[] = [
  {
    offsetMs: 250,
    lengthMs: 1000,
    values: [
      [0, 1],
      [1, 5],
      [1000, 2],
      [2047, 1],
      [2048, 3],
      [2049, 1],
    ],
  },
  {
    offsetMs: 1250,
    lengthMs: 1000,
    values: [
      [123_456, 7],
      [999_999_999, 1],
      [5, 40_000],
    ],
  },
  // a count above 2^31 and a value above 2^32: multi-byte LEB128 paths
  {
    offsetMs: 2250,
    lengthMs: 995,
    values: [
      [3, 3_000_000_000],
      [6_000_000_000, 2],
    ],
  },
  { offsetMs: 3245, lengthMs: 10, values: [] },
];

function writeJavaLog(file: string, startMs: number): void {
  const spec = INTERVALS.map(
    (iv) => `${iv.offsetMs} ${iv.lengthMs} ${iv.values.map(([v, c]) => `${v}x${c}`).join(' ')}`,
  ).join('\n');
  runOracle(['write', file, String(startMs)], spec + '\n');
}

describe('V2 interval logs written by HdrHistogram 2.1.12 (Java)', () => {
  const startMs = 1_700_000_123_456;
  let file: string;
  beforeAll(() => {
    file = path.join(tmp, 'READ.hdr');
    writeJavaLog(file, startMs);
  });

  it('parses the header and every interval with absolute times', () => {
    const log = parseIntervalLog(fs.readFileSync(file, 'utf8'), file);
    expect(log.formatVersion).toBe('1.3');
    expect(log.startTimeSec).toBeCloseTo(startMs / 1000, 3);
    expect(log.intervals.map((i) => i.startMs)).toEqual(INTERVALS.map((iv) => startMs + iv.offsetMs));
    expect(log.intervals.map((i) => i.endMs - i.startMs)).toEqual(INTERVALS.map((iv) => iv.lengthMs));
    expect(log.intervals[0].line).toBe(5);
  });

  it('decodes each interval to exactly the counts recorded in Java', () => {
    const log = parseIntervalLog(fs.readFileSync(file, 'utf8'), file);
    const decoder = new V2Decoder();
    log.intervals.forEach((iv, k) => {
      const d = decodeInterval(decoder, file, iv);
      expect(d.significantDigits).toBe(3);
      expect(d.lowestDiscernibleValue).toBe(1);
      const got = new Histogram(d);
      got.addSparse(d.indices, d.counts, d.n);
      const want = new Histogram();
      for (const [v, c] of INTERVALS[k].values) want.recordValue(v, c);
      expect(got.totalCount).toBe(INTERVALS[k].values.reduce((s, [, c]) => s + c, 0));
      expect(got.countsLength).toBe(want.countsLength);
      for (let i = 0; i < want.countsLength; i++) expect(got.countAtIndex(i)).toBe(want.countAtIndex(i));
    });
  });
});

describe('log reader details', () => {
  it('tolerates Tag= rows, CRLF line ends and honours an explicit BaseTime', () => {
    const real = fs.readFileSync(path.join(FIXTURES, 'fleet-small/loader-0/proc-0/READ.hdr'), 'utf8');
    const first = real.split('\n').find((l) => /^\d/.test(l))!;
    const payload = first.split(',')[3];
    const text = [
      '#[StartTime: 1000.000 (seconds since epoch)]',
      '#[BaseTime: 2000.500 (seconds since epoch)]',
      '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
      `Tag=west,1.250,1.000,0.004,${payload}`,
      `2.250,1.000,0.004,${payload}`,
    ].join('\r\n');
    const log = parseIntervalLog(text, 'x.hdr');
    expect(log.intervals.map((i) => [i.startMs, i.endMs, i.tag])).toEqual([
      [2_001_750, 2_002_750, 'west'],
      [2_002_750, 2_003_750, undefined],
    ]);
  });

  it('treats timestamps as absolute when they are not a year before StartTime (no BaseTime)', () => {
    const log = parseIntervalLog(
      '#[StartTime: 1700000000.000]\n1700000001.500,1.000,0.001,AAAA\n',
      'abs.hdr',
    );
    expect(log.intervals[0].startMs).toBe(1_700_000_001_500);
  });
});

describe('malformed logs are InputErrors naming file:line', () => {
  const decoder = new V2Decoder();
  const realLine = (): string[] => {
    const text = fs.readFileSync(path.join(FIXTURES, 'fleet-small/loader-0/proc-0/UPDATE.hdr'), 'utf8');
    return text.split('\n');
  };
  const decodeAll = (text: string, file: string): void => {
    const log = parseIntervalLog(text, file);
    for (const iv of log.intervals) decodeInterval(decoder, file, iv);
  };
  const errorOf = (fn: () => void): InputError => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return e as InputError;
    }
    throw new Error('expected an InputError');
  };

  it('a V1 log (HdrHistogram 2.1.4, HISTggAA) says so and how to fix it', () => {
    const file = path.join(FIXTURES, 'v1/load-INSERT.hdr');
    const err = errorOf(() => decodeAll(fs.readFileSync(file, 'utf8'), file));
    expect(err.issues[0].path).toBe(`${file}:5`);
    expect(err.message).toMatch(/V1 histogram encoding.*0x1c849382/);
    expect(err.message).toMatch(/HdrHistogram 2\.1\.12/);
  });

  it('a truncated base64 payload', () => {
    const lines = realLine();
    const k = lines.findIndex((l) => /^\d/.test(l) && l.length > 80);
    lines[k] = lines[k].slice(0, lines[k].length - 7);
    const err = errorOf(() => decodeAll(lines.join('\n'), 'UPDATE.hdr'));
    expect(err.issues[0].path).toBe(`UPDATE.hdr:${k + 1}`);
    expect(err.message).toMatch(/truncated/);
  });

  it('a payload cut at a multiple of 4 characters (declared length exceeds the data)', () => {
    const lines = realLine();
    const k = lines.findIndex((l) => /^\d/.test(l) && l.length > 80);
    const cut = lines[k].length - 20 - ((lines[k].length - 20) % 4) + (lines[k].indexOf('HIST') % 4);
    lines[k] = lines[k].slice(0, cut);
    const err = errorOf(() => decodeAll(lines.join('\n'), 'UPDATE.hdr'));
    expect(err.issues[0].path).toBe(`UPDATE.hdr:${k + 1}`);
    expect(err.message).toMatch(/truncated|corrupt/);
  });

  it('corrupt deflate data', () => {
    const lines = realLine();
    const k = lines.findIndex((l) => /^\d/.test(l) && l.length > 80);
    const parts = lines[k].split(',');
    const bytes = Buffer.from(parts[3], 'base64');
    for (let i = 12; i < bytes.length - 4; i++) bytes[i] ^= 0x5a;
    parts[3] = bytes.toString('base64');
    lines[k] = parts.join(',');
    const err = errorOf(() => decodeAll(lines.join('\n'), 'UPDATE.hdr'));
    expect(err.issues[0].path).toBe(`UPDATE.hdr:${k + 1}`);
    expect(err.message).toMatch(/corrupt|payload/);
  });

  it('a line that is not an interval', () => {
    const err = errorOf(() => parseIntervalLog('#[StartTime: 1.0]\n0.1,0.2,HISTFAAA\n', 'R.hdr'));
    expect(err.issues[0].path).toBe('R.hdr:2');
    expect(err.message).toMatch(/4 comma-separated fields/);
    const err2 = errorOf(() => parseIntervalLog('zero,0.2,0.1,HISTFAAA\n', 'R.hdr'));
    expect(err2.message).toMatch(/StartTimestamp must be a number/);
  });

  it('non-base64 characters and a wrong cookie', () => {
    const e1 = errorOf(() => decodeAll('0.1,0.2,0.1,HIST*AAA\n', 'R.hdr'));
    expect(e1.message).toMatch(/not base64/);
    // characters Node's base64 decoder would skip or accept: URL-safe alphabet, an inner '=', a space
    for (const bad of ['HIST-AAA', 'HIST_AAA', 'HI=TFAAA', 'HIST AAA']) {
      expect(errorOf(() => decodeAll(`0.1,0.2,0.1,${bad}\n`, 'R.hdr')).message).toMatch(/not base64/);
    }
    const e2 = errorOf(() => decodeAll(`0.1,0.2,0.1,${Buffer.alloc(12, 7).toString('base64')}\n`, 'R.hdr'));
    expect(e2.message).toMatch(/not a compressed HdrHistogram/);
  });
});

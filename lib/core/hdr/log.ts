/**
 * Reader for HdrHistogram interval logs as YCSB writes them (`hdrhistogram.fileoutput=true`; log format
 * 1.2/1.3 from HdrHistogram 2.1.12's HistogramLogWriter):
 *
 *   #[Logging for: READ]
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1795342077.991 (seconds since epoch), ...]
 *   #[BaseTime: ...]                                   (optional; YCSB never writes it)
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   0.034,0.062,0.006,HISTFAAAAIF42i2M...              (also "Tag=<tag>,0.034,...": tag ignored)
 *
 * Timestamps follow HistogramLogReader exactly: without a BaseTime, a first timestamp more than a year
 * before StartTime means timestamps are relative to StartTime, else absolute; an interval's start is
 * `(long)((timestamp + baseTime) * 1000.0)` ms since the epoch. Any line that is not a comment, the legend
 * or a well-formed interval is an InputError naming `file:line`.
 */
import { InputError } from '../common/errors';
import { HistogramDecodeError, V2Decoder, DecodedCounts } from './decode';

export interface IntervalLine {
  /** 1-based line number in the log */
  line: number;
  /** absolute start/end of the interval, epoch ms (as HistogramLogReader's setStartTimeStamp/EndTimeStamp) */
  startMs: number;
  endMs: number;
  tag?: string;
  /** the base64 payload, decoded on demand */
  payload: string;
}

export interface ParsedLog {
  file: string;
  startTimeSec: number | null;
  baseTimeSec: number | null;
  formatVersion: string | null;
  intervals: IntervalLine[];
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const YEAR_SEC = 365 * 24 * 3600.0;

/** Parses the text of one log (no histogram decoding yet). */
export function parseIntervalLog(text: string, file: string): ParsedLog {
  const intervals: IntervalLine[] = [];
  const header = scanIntervalLog(text, file, (iv) => void intervals.push(iv));
  return { ...header, intervals };
}

/**
 * Walks the text of one log line by line and hands each interval to `visit` as soon as it is read, so a
 * caller can decode and merge it without keeping the log's intervals (the aggregator's streaming path).
 * Returns the header fields.
 */
export function scanIntervalLog(
  text: string,
  file: string,
  visit: (interval: IntervalLine) => void,
): Omit<ParsedLog, 'intervals'> {
  const out: Omit<ParsedLog, 'intervals'> = {
    file,
    startTimeSec: null,
    baseTimeSec: null,
    formatVersion: null,
  };
  const time: LogTime = { startTimeSec: 0, observedStart: false, baseTimeSec: 0, observedBase: false };
  let lineNo = 0;
  let pos = 0;
  const len = text.length;
  while (pos < len) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = len;
    let line = text.slice(pos, nl);
    pos = nl + 1;
    lineNo++;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.length === 0) continue;
    const where = `${file}:${lineNo}`;
    if (line.charCodeAt(0) === 35 /* # */) {
      readHeaderLine(line, where, { out, time });
      continue;
    }
    if (line.startsWith('"StartTimestamp"')) continue;
    const { tag, ts, length, payload } = parseIntervalLine(line, where);
    if (!time.observedStart) {
      time.startTimeSec = ts;
      time.observedStart = true;
    }
    if (!time.observedBase) {
      time.baseTimeSec = ts < time.startTimeSec - YEAR_SEC ? time.startTimeSec : 0.0;
      time.observedBase = true;
    }
    const absStart = ts + time.baseTimeSec;
    const absEnd = absStart + length;
    visit({
      line: lineNo,
      startMs: Math.trunc(absStart * 1000.0),
      endMs: Math.trunc(absEnd * 1000.0),
      payload,
      ...(tag !== undefined ? { tag } : {}),
    });
  }
  return out;
}

/** The log's time base as HistogramLogReader keeps it while reading (StartTime, BaseTime, seen or inferred). */
interface LogTime {
  startTimeSec: number;
  observedStart: boolean;
  baseTimeSec: number;
  observedBase: boolean;
}

/** A comment line: StartTime, BaseTime and the format version are read, anything else is skipped. */
function readHeaderLine(
  line: string,
  where: string,
  { out, time }: { out: Omit<ParsedLog, 'intervals'>; time: LogTime },
): void {
  if (line.startsWith('#[StartTime: ')) {
    const v = Number(firstToken(line.slice(13)));
    if (!Number.isFinite(v)) throw new InputError([{ path: where, message: 'StartTime is not a number' }]);
    time.startTimeSec = v;
    time.observedStart = true;
    out.startTimeSec = v;
  } else if (line.startsWith('#[BaseTime: ')) {
    const v = Number(firstToken(line.slice(12)));
    if (!Number.isFinite(v)) throw new InputError([{ path: where, message: 'BaseTime is not a number' }]);
    time.baseTimeSec = v;
    time.observedBase = true;
    out.baseTimeSec = v;
  } else {
    const m = /^#\[Histogram log format version ([\d.]+)\]/.exec(line);
    if (m) out.formatVersion = m[1];
  }
}

/** An interval line `[Tag=<tag>,]StartTimestamp,Interval_Length,Interval_Max,<base64>`: its fields, checked. */
function parseIntervalLine(
  line: string,
  where: string,
): { tag: string | undefined; ts: number; length: number; payload: string } {
  let rest = line;
  let tag: string | undefined;
  if (rest.startsWith('Tag=')) {
    const comma = rest.indexOf(',');
    if (comma < 0) throw new InputError([{ path: where, message: 'tagged interval line has no fields' }]);
    tag = rest.slice(4, comma);
    rest = rest.slice(comma + 1);
  }
  const c1 = rest.indexOf(',');
  const c2 = c1 < 0 ? -1 : rest.indexOf(',', c1 + 1);
  const c3 = c2 < 0 ? -1 : rest.indexOf(',', c2 + 1);
  if (c3 < 0 || rest.indexOf(',', c3 + 1) >= 0) {
    throw new InputError([
      {
        path: where,
        message:
          'expected an interval line "StartTimestamp,Interval_Length,Interval_Max,<base64 histogram>" ' +
          `(4 comma-separated fields), got ${JSON.stringify(line.length > 80 ? line.slice(0, 80) + '…' : line)}`,
      },
    ]);
  }
  const fields = [rest.slice(0, c1), rest.slice(c1 + 1, c2), rest.slice(c2 + 1, c3)];
  const names = ['StartTimestamp', 'Interval_Length', 'Interval_Max'];
  const nums = fields.map((f, k) => {
    if (!NUMBER.test(f)) {
      throw new InputError([{ path: where, message: `${names[k]} must be a number of seconds, got "${f}"` }]);
    }
    return Number(f);
  });
  return { tag, ts: nums[0]!, length: nums[1]!, payload: rest.slice(c3 + 1) };
}

function firstToken(s: string): string {
  const m = /^\s*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)(?![\d.])/.exec(s);
  return m ? m[1] : '';
}

/** Decodes one interval's histogram; a bad payload is an InputError naming the file and line. */
export function decodeInterval(decoder: V2Decoder, file: string, interval: IntervalLine): DecodedCounts {
  try {
    return decoder.decodeBase64(interval.payload);
  } catch (err) {
    if (err instanceof HistogramDecodeError) {
      throw new InputError([
        { path: `${file}:${interval.line}`, message: `interval histogram: ${err.message}` },
      ]);
    }
    throw err;
  }
}

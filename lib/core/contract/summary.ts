/**
 * The YCSB end-of-run summary, the one parser of it (issue #18): the loader agent judges a process by it
 * and writes its counts into the manifest (loader/agent/src/run-job.ts); the aggregator reads it for the
 * status counts of a cell (lib/core/results/input.ts). Two forms, as YCSB 0.17.0 writes them
 * (site.ycsb.measurements.exporter in https://github.com/brianfrankcooper/YCSB/tree/0.17.0/core):
 * the JSON array exporter (`JSONArrayMeasurementsExporter`, an array of `{metric, measurement, value}`)
 * and the text form (`TextMeasurementsExporter`, `[METRIC], MEASUREMENT, VALUE` lines).
 *
 * What is kept: `[OVERALL]` runtime and throughput, and per measurement `Operations` and every `Return=`
 * line. `[X], Operations` counts successes only (failed latencies are under `X-FAILED`); the attempted
 * operations of X are Σ of its `Return=` lines.
 *
 * Repeated `Return=` lines are SUMMED. They are real: YCSB keys its status counts by `Status` object, and
 * `Status.equals` compares the name AND the description
 * (https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/Status.java), while
 * the exporter writes only the name (`OneMeasurement.exportStatusCounts`). A binding that returns its own
 * `new Status("SERVICE_UNAVAILABLE", "...")` next to `Status.SERVICE_UNAVAILABLE` gets two
 * `[READ], Return=SERVICE_UNAVAILABLE` lines: test/fixtures/ycsb/repeated-return holds such output of real
 * YCSB (test/oracle/gen-ycsb-repeated-return.sh). fleetbench's own bindings name their statuses apart from
 * YCSB 0.17.0's (THROTTLED, TIMEOUT), so their summaries do not repeat a line today; a user's jar may.
 */
import { InputError } from '../common/errors';

export interface OpSummary {
  /** `[X], Operations`: latency samples of X (successful operations only for base ops) */
  operations?: number;
  /** `[X], Return=<STATUS>, n` */
  returns: Record<string, number>;
}

export interface YcsbSummary {
  runtimeMs?: number;
  throughput?: number;
  ops: Record<string, OpSummary>;
}

interface Entry {
  metric: string;
  measurement: string;
  value: number;
}

/** Parses summary text, JSON array or text form chosen by the first non-blank character. */
export function parseSummary(text: string, file: string): YcsbSummary {
  const trimmed = text.trimStart();
  if (trimmed.length === 0) throw new InputError([{ path: file, message: 'summary is empty' }]);
  return trimmed.startsWith('[{') || trimmed.startsWith('[\n') || /^\[\s*(\{|\])/.test(trimmed)
    ? fromEntries(parseJsonArray(text, file))
    : fromEntries(parseText(text, file));
}

function parseJsonArray(text: string, file: string): Entry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputError([{ path: file, message: `summary is not valid JSON: ${(err as Error).message}` }]);
  }
  if (!Array.isArray(doc)) {
    throw new InputError([{ path: file, message: 'expected a JSON array of {metric, measurement, value}' }]);
  }
  const issues: { path: string; message: string }[] = [];
  const out: Entry[] = [];
  doc.forEach((e: unknown, i) => {
    const o = e as Record<string, unknown>;
    if (!o || typeof o !== 'object') {
      issues.push({ path: `${file}[${i}]`, message: 'expected an object {metric, measurement, value}' });
      return;
    }
    if (typeof o.metric !== 'string')
      issues.push({ path: `${file}[${i}].metric`, message: 'expected a string' });
    if (typeof o.measurement !== 'string') {
      issues.push({ path: `${file}[${i}].measurement`, message: 'expected a string' });
    }
    // Jackson writes NaN/Infinity unquoted, which JSON.parse rejects; a quoted form is tolerated.
    const value =
      typeof o.value === 'number'
        ? o.value
        : typeof o.value === 'string' && /^(NaN|-?Infinity)$/.test(o.value)
          ? Number(o.value)
          : undefined;
    if (typeof value !== 'number') issues.push({ path: `${file}[${i}].value`, message: 'expected a number' });
    if (typeof o.metric === 'string' && typeof o.measurement === 'string' && typeof value === 'number') {
      out.push({ metric: o.metric, measurement: o.measurement, value });
    }
  });
  if (issues.length) throw new InputError(issues);
  return out;
}

function parseText(text: string, file: string): Entry[] {
  const out: Entry[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!line.startsWith('[')) return; // stdout may carry other lines (binding output, warnings)
    const m = /^\[([^\]]+)\], ([^,]+), (.*)$/.exec(line);
    if (!m) return; // status lines "[READ: Count=..." and the like are not summary lines
    const value = Number(m[3].trim());
    if (m[3].trim() === '' || (Number.isNaN(value) && m[3].trim() !== 'NaN')) {
      throw new InputError([
        { path: `${file}:${i + 1}`, message: `expected a number after "[${m[1]}], ${m[2]}, "` },
      ]);
    }
    out.push({ metric: m[1], measurement: m[2], value });
  });
  if (out.length === 0) {
    throw new InputError([{ path: file, message: 'no "[METRIC], MEASUREMENT, VALUE" summary lines found' }]);
  }
  return out;
}

function fromEntries(entries: Entry[]): YcsbSummary {
  const s: YcsbSummary = { ops: {} };
  for (const { metric, measurement, value } of entries) {
    if (metric === 'OVERALL') {
      if (measurement === 'RunTime(ms)') s.runtimeMs = value;
      else if (measurement === 'Throughput(ops/sec)') s.throughput = value;
      continue;
    }
    if (measurement === 'Operations') {
      (s.ops[metric] ??= { returns: {} }).operations = value;
    } else if (measurement.startsWith('Return=')) {
      const op = (s.ops[metric] ??= { returns: {} });
      const status = measurement.slice('Return='.length);
      op.returns[status] = (op.returns[status] ?? 0) + value;
    }
  }
  return s;
}

/** `[OP], Return=STATUS` counts by measurement, for the measurements that have any. */
export function returnCounts(s: YcsbSummary): Record<string, Record<string, number>> {
  return Object.fromEntries(
    Object.entries(s.ops)
      .filter(([, o]) => Object.keys(o.returns).length > 0)
      .map(([name, o]) => [name, { ...o.returns }]),
  );
}

/** `[NAME], Operations` of every measurement that has the line (READ, READ-FAILED, Intended-READ, ...). */
export function operationCounts(s: YcsbSummary): Record<string, number> {
  return Object.fromEntries(
    Object.entries(s.ops)
      .filter(([, o]) => o.operations !== undefined)
      .map(([name, o]) => [name, o.operations as number]),
  );
}

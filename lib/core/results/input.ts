/**
 * Reads one cell's raw outputs as the loader agent lays them out:
 *
 *   <dir>/loader-<i>/proc-<j>/
 *       <NAME>.hdr       one HdrHistogram interval log per measurement name (READ.hdr, Intended-READ.hdr, ...)
 *       summary.json     YCSB JSONArrayMeasurementsExporter output (summary.txt: the text exporter's)
 *       stderr.log       YCSB's status lines (not read here)
 *       manifest.json    written by the agent: { loader, process, exitCode, startMs, endMs, host, phase, ... }
 *
 * Missing pieces that make a cell incomplete (a process without manifest, a non-zero exit code, no summary,
 * no logs) are recorded as problems; unreadable or malformed files are InputErrors naming the file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, Issue } from '../errors';
import { parseSummary, YcsbSummary } from './summary';

export interface Manifest {
  loader: number;
  process: number;
  exitCode: number | null;
  startMs: number;
  endMs: number;
  host?: string;
  phase?: string;
}

export interface LogFile {
  /** measurement name = file name without `.hdr` */
  name: string;
  path: string;
}

export interface ProcessInput {
  loader: number;
  process: number;
  /** `loader-<i>/proc-<j>` */
  label: string;
  dir: string;
  manifest: Manifest | null;
  summary: YcsbSummary | null;
  logs: LogFile[];
  /** reasons this process makes its cell incomplete */
  problems: string[];
}

export interface CellInput {
  dir: string;
  processes: ProcessInput[];
}

const LOADER_DIR = /^loader-(\d+)$/;
const PROC_DIR = /^proc-(\d+)$/;

export function readCellDir(dir: string): CellInput {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new InputError([
      { path: dir, message: 'no such directory (expected loader-<i>/proc-<j>/ outputs)' },
    ]);
  }
  if (!st.isDirectory()) throw new InputError([{ path: dir, message: 'not a directory' }]);
  const processes: ProcessInput[] = [];
  for (const l of sortedMatches(dir, LOADER_DIR)) {
    const loaderDir = path.join(dir, l.name);
    const procs = sortedMatches(loaderDir, PROC_DIR);
    if (procs.length === 0) {
      throw new InputError([{ path: loaderDir, message: 'loader directory holds no proc-<j>/ directories' }]);
    }
    for (const p of procs) processes.push(readProcess(path.join(loaderDir, p.name), l.index, p.index));
  }
  if (processes.length === 0) {
    throw new InputError([
      { path: dir, message: 'empty: expected loader-<i>/proc-<j>/ directories holding YCSB outputs' },
    ]);
  }
  return { dir, processes };
}

function sortedMatches(dir: string, re: RegExp): { name: string; index: number }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && re.test(e.name))
    .map((e) => ({ name: e.name, index: Number(re.exec(e.name)![1]) }))
    .sort((a, b) => a.index - b.index);
}

function readProcess(dir: string, loader: number, proc: number): ProcessInput {
  const label = `loader-${loader}/proc-${proc}`;
  const problems: string[] = [];
  const files = fs.readdirSync(dir);
  const logs = files
    .filter((f) => f.endsWith('.hdr'))
    .sort()
    .map((f) => ({ name: f.slice(0, -4), path: path.join(dir, f) }));

  let manifest: Manifest | null = null;
  const manifestPath = path.join(dir, 'manifest.json');
  if (files.includes('manifest.json')) {
    manifest = parseManifest(fs.readFileSync(manifestPath, 'utf8'), manifestPath, loader, proc);
    if (manifest.exitCode !== 0) problems.push(`${label}: YCSB exited with code ${manifest.exitCode}`);
  } else {
    problems.push(`${label}: no manifest.json (the agent did not finish this process)`);
  }

  let summary: YcsbSummary | null = null;
  const summaryFile = files.includes('summary.json')
    ? 'summary.json'
    : files.includes('summary.txt')
      ? 'summary.txt'
      : null;
  if (summaryFile) {
    const p = path.join(dir, summaryFile);
    summary = parseSummary(fs.readFileSync(p, 'utf8'), p);
  } else {
    problems.push(`${label}: no summary.json (YCSB did not write its end-of-run summary)`);
  }
  if (logs.length === 0) problems.push(`${label}: no .hdr interval logs`);
  return { loader, process: proc, label, dir, manifest, summary, logs, problems };
}

export function parseManifest(text: string, file: string, loader?: number, proc?: number): Manifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputError([{ path: file, message: `not valid JSON: ${(err as Error).message}` }]);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new InputError([{ path: file, message: 'expected a JSON object' }]);
  }
  const o = doc as Record<string, unknown>;
  const issues: Issue[] = [];
  const int = (k: string, nullable = false): void => {
    const v = o[k];
    if (nullable && v === null) return;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      issues.push({ path: `${file}: ${k}`, message: `expected an integer${nullable ? ' or null' : ''}` });
    }
  };
  int('loader');
  int('process');
  int('exitCode', true);
  int('startMs');
  int('endMs');
  for (const k of ['host', 'phase']) {
    if (o[k] !== undefined && typeof o[k] !== 'string') {
      issues.push({ path: `${file}: ${k}`, message: 'expected a string' });
    }
  }
  if (issues.length === 0) {
    if (loader !== undefined && o.loader !== loader) {
      issues.push({
        path: `${file}: loader`,
        message: `is ${o.loader} but the directory is loader-${loader}`,
      });
    }
    if (proc !== undefined && o.process !== proc) {
      issues.push({ path: `${file}: process`, message: `is ${o.process} but the directory is proc-${proc}` });
    }
    if ((o.endMs as number) < (o.startMs as number)) {
      issues.push({ path: `${file}: endMs`, message: 'must not be before startMs' });
    }
  }
  if (issues.length) throw new InputError(issues);
  return {
    loader: o.loader as number,
    process: o.process as number,
    exitCode: o.exitCode as number | null,
    startMs: o.startMs as number,
    endMs: o.endMs as number,
    ...(typeof o.host === 'string' ? { host: o.host } : {}),
    ...(typeof o.phase === 'string' ? { phase: o.phase } : {}),
  };
}

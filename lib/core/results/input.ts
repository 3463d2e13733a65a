/**
 * Reads one cell's raw outputs from the object store, as the loader agent lays them out under the cell's
 * `raw/` prefix (the same layout in S3 and in a local directory):
 *
 *   loader-<i>/proc-<j>/
 *       <NAME>.hdr       one HdrHistogram interval log per measurement name (READ.hdr, Intended-READ.hdr, ...)
 *       summary.json     YCSB JSONArrayMeasurementsExporter output (summary.txt: the text exporter's)
 *       stderr.log       YCSB's status lines (not read here)
 *       manifest.json    written by the agent last (lib/core/contract/manifest.ts)
 *
 * A process whose manifest lists its files (`files`, the agent's) is read from those alone: objects an earlier
 * execution left in its directory are not its own. Only the small objects (manifests, summaries) are read here; the interval logs are named (`LogRef`) and
 * read one at a time by the aggregator, which decodes them as it goes (lib/core/results/aggregate.ts).
 * Missing pieces that make a cell incomplete (a process without manifest, a non-zero exit code, no summary,
 * no logs) are recorded as problems; unreadable or malformed objects are InputErrors naming the object.
 */
import { parseManifest, type ProcessManifest } from '../contract/manifest';
import { parseSummary, type YcsbSummary } from '../contract/summary';
import { InputError } from '../common/errors';
import type { ObjectStore } from '../common/store';

/** What the cell reader needs of the store: list once, then read objects. */
export type CellSource = Pick<ObjectStore, 'uri' | 'list' | 'get' | 'uriOf'>;

export interface LogRef {
  /** measurement name = object name without `.hdr` */
  name: string;
  /** the object's key in the source */
  key: string;
  /** the object's URI (for messages) */
  uri: string;
}

export interface ProcessInput {
  loader: number;
  process: number;
  /** `loader-<i>/proc-<j>` */
  label: string;
  manifest: ProcessManifest | null;
  summary: YcsbSummary | null;
  logs: LogRef[];
  /** reasons this process makes its cell incomplete */
  problems: string[];
}

export interface CellInput {
  /** URI of the cell's raw outputs (for messages) */
  uri: string;
  /** where the logs are read from */
  source: Pick<ObjectStore, 'get'>;
  processes: ProcessInput[];
}

const LOADER_DIR = /^loader-(\d+)$/;
const PROC_DIR = /^proc-(\d+)$/;

/** What the reader expects of the processes. */
export interface ReadCellOptions {
  /**
   * The execution whose processes are read (the job's `execution`): a process whose manifest names another one is an
   * earlier execution's, left under the same prefix (a resumed run's cell writes where the failed execution's did),
   * and this execution's process of that slot left nothing: it is missing. Manifests without the field are read.
   */
  execution?: string;
}

/** Reads the manifests and summaries of every `loader-<i>/proc-<j>/` under `prefix` ('' = the source's root). */
export async function readCell(
  source: CellSource,
  prefix = '',
  options: ReadCellOptions = {},
): Promise<CellInput> {
  const base = prefix === '' ? '' : prefix.replace(/\/+$/, '') + '/';
  const uri = base === '' ? source.uri : source.uriOf(base.slice(0, -1));
  // loader index -> proc index -> object names
  const tree = new Map<number, Map<number, string[]>>();
  for (const key of await source.list(base)) {
    const parts = key.slice(base.length).split('/');
    const l = LOADER_DIR.exec(parts[0] ?? '');
    if (!l || parts.length < 2) continue;
    const procs = tree.get(Number(l[1])) ?? new Map<number, string[]>();
    tree.set(Number(l[1]), procs);
    const p = PROC_DIR.exec(parts[1] ?? '');
    if (!p || parts.length !== 3) continue;
    const names = procs.get(Number(p[1])) ?? [];
    names.push(parts[2]!);
    procs.set(Number(p[1]), names);
  }
  if (tree.size === 0) {
    throw new InputError([
      {
        path: uri,
        message: 'empty: no loader output (expected loader-<i>/proc-<j>/ objects holding YCSB outputs)',
      },
    ]);
  }
  const processes: ProcessInput[] = [];
  for (const [loader, procs] of [...tree].sort((a, b) => a[0] - b[0])) {
    if (procs.size === 0) {
      throw new InputError([
        { path: `${uri}/loader-${loader}`, message: 'loader holds no proc-<j>/ outputs' },
      ]);
    }
    for (const [proc, names] of [...procs].sort((a, b) => a[0] - b[0])) {
      const dir = `${base}loader-${loader}/proc-${proc}/`;
      processes.push(await readProcess(source, { dir, listed: names, loader, proc }, options));
    }
  }
  return { uri, source, processes };
}

async function readProcess(
  source: CellSource,
  at: { dir: string; listed: string[]; loader: number; proc: number },
  options: ReadCellOptions,
): Promise<ProcessInput> {
  const { dir, listed, loader, proc } = at;
  const label = `loader-${loader}/proc-${proc}`;
  const problems: string[] = [];
  let manifest: ProcessManifest | null = null;
  if (listed.includes('manifest.json')) {
    const key = dir + 'manifest.json';
    manifest = parseManifest((await source.get(key)).toString('utf8'), source.uriOf(key), {
      loader,
      process: proc,
    });
    const other = manifest.execution;
    if (options.execution !== undefined && other != null && other !== options.execution) {
      problems.push(
        `${label}: no output of execution ${options.execution} (the objects there are execution ${other}'s, ` +
          'left under the same prefix)',
      );
      return { loader, process: proc, label, manifest: null, summary: null, logs: [], problems };
    }
    if (manifest.exitCode !== 0) problems.push(`${label}: YCSB exited with code ${manifest.exitCode}`);
  } else {
    problems.push(`${label}: no manifest.json (the agent did not finish this process)`);
  }
  const names = processFiles(listed, manifest, label, problems);
  const logs = names
    .filter((f) => f.endsWith('.hdr'))
    .sort()
    .map((f) => ({ name: f.slice(0, -4), key: dir + f, uri: source.uriOf(dir + f) }));

  let summary: YcsbSummary | null = null;
  const summaryFile = names.includes('summary.json')
    ? 'summary.json'
    : names.includes('summary.txt')
      ? 'summary.txt'
      : null;
  if (summaryFile) {
    const key = dir + summaryFile;
    summary = parseSummary((await source.get(key)).toString('utf8'), source.uriOf(key));
  } else {
    problems.push(`${label}: no summary.json (YCSB did not write its end-of-run summary)`);
  }
  if (logs.length === 0) problems.push(`${label}: no .hdr interval logs`);
  return { loader, process: proc, label, manifest, summary, logs, problems };
}

/**
 * The process's files to read: those its manifest lists (`files`: everything the agent uploaded for it), so objects
 * an earlier execution left under the same prefix (a resumed run's cell writes where the failed execution's attempt
 * did) are not read as this process's; a listed file that is not there is a problem. A manifest without the list (the
 * fixture generator's, an older agent's) or no manifest: every object of the directory.
 */
function processFiles(
  listed: string[],
  manifest: ProcessManifest | null,
  label: string,
  problems: string[],
): string[] {
  if (!manifest?.files) return listed;
  const present = new Set(listed);
  for (const f of manifest.files)
    if (!present.has(f)) problems.push(`${label}: manifest.json lists ${f}, which is not in the store`);
  return manifest.files.filter((f) => present.has(f));
}

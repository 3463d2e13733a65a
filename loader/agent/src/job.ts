/**
 * The job document one loader agent runs: which cell, which phase, and the YCSB properties of each
 * of its P processes (made by the planner). Everything is checked here, before any JVM starts;
 * every problem is reported with the JSON path of the field and what was expected.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { InputError, Issue } from '../../../lib/core/errors';
import { ObjectStore, parseStoreUri, splitObjectUri } from '../../../lib/core/store';
import { AGENT_OWNED_PROPERTIES } from '../../../lib/core/loader-properties';

/** The fleetbench DynamoDB-API binding (loader/ycsb-binding). */
export const DEFAULT_DB_CLASS = 'dev.fleetbench.ycsb.DynamoDbClient';

/** Properties the agent sets itself: a job may not set them (the agent needs their exact values). */
export { AGENT_OWNED_PROPERTIES };

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
const JAVA_CLASS = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)+$/;

const propertyValue = z.union([z.string(), z.number(), z.boolean()]);

export const JobSchema = z
  .object({
    runId: z
      .string()
      .regex(ID, 'a run id: letters, digits, . _ - (max 128), starting with a letter or digit'),
    cellId: z
      .string()
      .regex(ID, 'a cell id: letters, digits, . _ - (max 128), starting with a letter or digit'),
    loaderIndex: z.number().int().min(0),
    phase: z.enum(['load', 'run']),
    /** One YCSB property map per process; P = its length. */
    processes: z
      .array(z.record(z.string().regex(PROPERTY_NAME, 'a YCSB property name'), propertyValue))
      .min(1)
      .max(64),
    /** How long the phase is expected to take; the deadline is this plus graceSeconds. */
    durationSeconds: z
      .number()
      .positive()
      .max(7 * 24 * 3600),
    graceSeconds: z.number().min(0).max(3600).default(60),
    /** After the deadline: SIGTERM, then SIGKILL this many seconds later. */
    killAfterSeconds: z.number().min(0).max(600).default(10),
    /** YCSB's status.interval: status lines, HDR log intervals and progress reports. */
    statusIntervalSeconds: z.number().int().min(1).max(600).default(10),
    /** Object-store URI the raw outputs go under (`.../raw`); proc dirs are `loader-<i>/proc-<j>/`. */
    outputPrefix: z.string(),
    db: z.string().regex(JAVA_CLASS, 'a fully qualified Java class name').default(DEFAULT_DB_CLASS),
    /** Extra `-P` property files, applied before the per-process properties (later wins). */
    propertyFiles: z.array(z.string().min(1)).default([]),
    /** Extra JVM options, e.g. ["-Xmx1g"]. */
    jvmArgs: z.array(z.string().min(1)).default([]),
    /**
     * The target's credentials, by reference: the agent fetches the secret at job start and hands it
     * to the JVMs in their environment (never in property files, the manifest or logs).
     */
    credentials: z
      .strictObject({
        secretArn: z.string().regex(/^arn:aws[a-z-]*:secretsmanager:/, 'a Secrets Manager secret ARN'),
        protocol: z.enum(['dynamodb', 'cql']),
      })
      .optional(),
    /** A process fails when more than this fraction of its operations returned an error status. */
    maxErrorFraction: z.number().min(0).max(1).default(0.5),
  })
  .strict();

export type Job = z.output<typeof JobSchema>;
export type JobInput = z.input<typeof JobSchema>;

function zodIssues(error: z.ZodError, base: string): Issue[] {
  return error.issues.map((i) => {
    const p = [base, ...i.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`))].join('');
    let message = i.message;
    if (i.code === 'unrecognized_keys')
      message = `unknown field(s) ${i.keys.map((k) => `"${k}"`).join(', ')}`;
    else if (i.code === 'invalid_type' && /received undefined/.test(i.message)) {
      message = `is required (expected ${i.expected})`;
    }
    return { path: p.replace(/^\./, '').replace(/\.\[/g, '['), message };
  });
}

/**
 * Validates a job document (already parsed JSON). `baseDir` resolves relative property-file paths
 * (the job file's directory, or the working directory). All problems come back in one InputError.
 */
export async function validateJob(doc: unknown, baseDir = process.cwd(), base = 'job'): Promise<Job> {
  const parsed = JobSchema.safeParse(doc);
  const issues: Issue[] = parsed.success ? [] : zodIssues(parsed.error, base);
  // The checks below also run when the schema failed, on whatever fields have the right type,
  // so one run reports every problem.
  const raw = (
    parsed.success ? parsed.data : typeof doc === 'object' && doc !== null ? doc : {}
  ) as Partial<Job>;

  if (typeof raw.outputPrefix === 'string') {
    try {
      parseStoreUri(raw.outputPrefix, `${base}.outputPrefix`);
    } catch (err) {
      if (err instanceof InputError) issues.push(...err.issues);
      else throw err;
    }
  }

  const propertyFiles = Array.isArray(raw.propertyFiles) ? raw.propertyFiles : [];
  const resolvedFiles = await Promise.all(
    propertyFiles.map(async (f, k) => {
      if (typeof f !== 'string' || f === '') return f;
      const abs = path.resolve(baseDir, f);
      try {
        const st = await fs.stat(abs);
        if (!st.isFile())
          issues.push({ path: `${base}.propertyFiles[${k}]`, message: `${abs} is not a file` });
      } catch {
        issues.push({ path: `${base}.propertyFiles[${k}]`, message: `property file not found: ${abs}` });
      }
      return abs;
    }),
  );

  const phase = raw.phase === 'load' || raw.phase === 'run' ? raw.phase : undefined;
  const processes = Array.isArray(raw.processes) ? raw.processes : [];
  processes.forEach((props, j) => {
    if (typeof props !== 'object' || props === null || Array.isArray(props)) return;
    checkProcess(props, j, phase, base, issues);
  });
  if (phase === 'load') checkLoadRanges(processes, base, issues);

  if (issues.length || !parsed.success) throw new InputError(issues);
  const job = parsed.data;
  job.propertyFiles = resolvedFiles as string[];
  return job;
}

function checkProcess(
  props: Record<string, unknown>,
  j: number,
  phase: 'load' | 'run' | undefined,
  base: string,
  issues: Issue[],
): void {
  const at = (name: string): string => `${base}.processes[${j}].${name}`;
  for (const owned of AGENT_OWNED_PROPERTIES) {
    if (owned in props)
      issues.push({ path: at(owned), message: 'is set by the agent; remove it from the job' });
  }
  const int = (name: string): number | undefined => {
    if (!(name in props)) return undefined;
    const v = Number(props[name]);
    if (
      typeof props[name] === 'boolean' ||
      props[name] === '' ||
      !Number.isInteger(v) ||
      v < 0 ||
      v > 2147483647
    ) {
      issues.push({
        path: at(name),
        message: `must be an integer 0..2147483647, got ${JSON.stringify(props[name])}`,
      });
      return undefined;
    }
    return v;
  };
  const recordcount = int('recordcount');
  const insertstart = int('insertstart');
  const insertcount = int('insertcount');
  const operationcount = int('operationcount');
  int('threadcount');
  int('maxexecutiontime');
  if (phase === 'run') {
    if (!('operationcount' in props)) {
      issues.push({
        path: at('operationcount'),
        message:
          'is required for the run phase (YCSB 0.17.0 needs it; use a large count with maxexecutiontime)',
      });
    } else if (operationcount === 0) {
      issues.push({
        path: at('operationcount'),
        message:
          'must be > 0: YCSB 0.17.0 starts zero threads with operationcount=0; use a large count with maxexecutiontime',
      });
    }
  } else if (phase === 'load') {
    if (!('recordcount' in props)) {
      issues.push({
        path: at('recordcount'),
        message: 'is required for the load phase (the total of all loaders)',
      });
    }
    if (recordcount !== undefined && insertstart !== undefined && insertcount !== undefined) {
      if (insertstart + insertcount > recordcount) {
        issues.push({
          path: at('insertcount'),
          message: `insertstart + insertcount (${insertstart} + ${insertcount}) exceeds recordcount ${recordcount}`,
        });
      }
    }
  }
}

/** Load ranges of the processes must not overlap: each key is inserted once. */
function checkLoadRanges(processes: unknown[], base: string, issues: Issue[]): void {
  const ranges = processes
    .map((p, j) => {
      const props = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
      return {
        j,
        start: Number(props.insertstart ?? 0),
        count: Number(props.insertcount ?? props.recordcount),
      };
    })
    .filter((r) => Number.isInteger(r.start) && Number.isInteger(r.count))
    .sort((a, b) => a.start - b.start);
  for (let k = 1; k < ranges.length; k++) {
    const prev = ranges[k - 1];
    const cur = ranges[k];
    if (cur.start < prev.start + prev.count) {
      issues.push({
        path: `${base}.processes[${cur.j}].insertstart`,
        message: `load range [${cur.start}, ${cur.start + cur.count}) overlaps processes[${prev.j}] [${prev.start}, ${prev.start + prev.count}); use disjoint insertstart/insertcount`,
      });
    }
  }
}

/** Reads and validates a job from a local path, a file:// URI or an s3:// URI. */
export async function loadJob(
  ref: string,
  openStore: (uri: string) => ObjectStore,
): Promise<{ job: Job; source: string }> {
  let doc: unknown;
  let baseDir = process.cwd();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref)) {
    const { root, key } = splitObjectUri(ref, 'job');
    doc = await openStore(root).getJson(key);
    if (ref.startsWith('file://')) baseDir = (parseStoreUri(root) as { dir: string }).dir;
  } else {
    const abs = path.resolve(ref);
    let text: string;
    try {
      text = await fs.readFile(abs, 'utf8');
    } catch (err) {
      throw new InputError([
        { path: 'job', message: `cannot read job file ${abs}: ${(err as Error).message}` },
      ]);
    }
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new InputError([{ path: abs, message: `not valid JSON (${(err as Error).message})` }]);
    }
    baseDir = path.dirname(abs);
  }
  return { job: await validateJob(doc, baseDir), source: ref };
}

/**
 * The process manifest: what the loader agent writes last for each YCSB process it ran
 * (`<cell>/raw/loader-<i>/proc-<j>/manifest.json`, loader/agent/src/run-job.ts) and what the results
 * reader parses (lib/core/results/input.ts). One schema, one type, one parser (issue #18).
 *
 * Required: what the reader needs to place a process in its cell and time window, and what every writer
 * writes (the agent, and test/oracle/gen-ycsb-fixtures.sh for the real-YCSB fixtures). Optional: what the
 * agent adds for people reading a run's raw outputs (the command, the summary's counts, the files, the
 * verdict); the fixture generator does not know them. Unknown fields are dropped on reading, so a newer
 * agent's manifest still reads.
 */
import { z } from 'zod';
import { InputError, type Issue } from '../common/errors';
import { zodErrorIssues } from '../spec/errors';

// zod 4: .int() accepts safe integers only
const int = z.number().int();
const count = z.number().int().min(0);

/**
 * The loader's CPU over the job (Linux: /proc/stat and /proc/<pid>/stat, loader/agent/src/cpu.ts; null
 * elsewhere). What it means for a cell: lib/core/results/loader-cpu.ts.
 */
export const ManifestCpuSchema = z.strictObject({
  /** logical CPUs of the machine (/proc/stat cpuN lines) */
  cores: int.min(1),
  /** the job's window the machine figure covers, epoch ms */
  windowStartMs: int,
  windowEndMs: int,
  /** whole-machine CPU utilisation over the window, % of all CPUs (0..100); null when /proc/stat was unreadable */
  machinePct: z.number().min(0).max(100).nullable(),
  /** this JVM's user + system CPU time, ms (last /proc/<pid>/stat sample); null when never sampled */
  processCpuMs: z.number().min(0).nullable(),
  /** processCpuMs ÷ the JVM's wall time, % of one CPU (0..100 × cores) */
  processPct: z.number().min(0).nullable(),
});
export type ManifestCpu = z.output<typeof ManifestCpuSchema>;

export const ManifestSchema = z
  .object({
    /** loader index (the `loader-<i>` directory) */
    loader: int.min(0),
    /** process index on its loader (the `proc-<j>` directory) */
    process: int.min(0),
    phase: z.enum(['load', 'run']),
    host: z.string(),
    /** null: the JVM did not exit by itself (killed by a signal, or never started) */
    exitCode: int.nullable(),
    /** when the agent started the JVM, epoch ms */
    startMs: int.min(0),
    /** when the JVM exited, epoch ms */
    endMs: int.min(0),
    /**
     * when YCSB's workload began (the agent: its first status line, less the seconds it reports), epoch ms;
     * the run phase's schedule ends `durationSeconds` later (lib/core/results/aggregate.ts leaves the drain
     * after it out of the window). null: YCSB printed no status line.
     */
    workloadStartMs: int.min(0).nullable().optional(),
    runId: z.string().optional(),
    cellId: z.string().optional(),
    /**
     * the execution whose job the process ran (a resumed run's own execution, else the run id: the job's
     * `execution`); null or absent in manifests written before it existed
     */
    execution: z.string().nullable().optional(),
    pid: int.nullable().optional(),
    /** the JVM's command line */
    command: z.array(z.string()).optional(),
    signal: z.string().nullable().optional(),
    /** the agent killed the JVM: at the job's deadline, or because it was stopped */
    killed: z.enum(['deadline', 'aborted']).nullable().optional(),
    /** `[OP], Return=STATUS` counts of the summary by op and status (CLEANUP left out) */
    counts: z.record(z.string(), z.record(z.string(), count)).optional(),
    /** attempted database operations: Σ of the `Return=` counts (lib/core/contract/summary.ts) */
    operations: count.optional(),
    /** `[NAME], Operations` of every measurement in the summary (incl. -FAILED and Intended-) */
    measurements: z.record(z.string(), count).optional(),
    /** the objects uploaded next to the manifest, the manifest included */
    files: z.array(z.string()).optional(),
    /** why the agent judged the process failed; null when it succeeded */
    error: z.string().nullable().optional(),
    /** the loader's CPU over the job; null where /proc cannot be read */
    cpu: ManifestCpuSchema.nullable().optional(),
  })
  .refine((m) => m.endMs >= m.startMs, { path: ['endMs'], message: 'must not be before startMs' });

export type ProcessManifest = z.output<typeof ManifestSchema>;

/**
 * Checks a manifest (parsed JSON); `file` names it in errors. With `at`, the manifest must also name the
 * directory it was found in. Every problem comes back in one InputError naming the object and the field.
 */
export function checkManifest(
  doc: unknown,
  file: string,
  at?: { loader: number; process: number },
): ProcessManifest {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new InputError([{ path: file, message: 'expected a JSON object (a process manifest)' }]);
  }
  const parsed = ManifestSchema.safeParse(doc);
  if (!parsed.success) throw new InputError(zodErrorIssues(parsed.error, ManifestSchema, doc, { file }));
  const m = parsed.data;
  const issues: Issue[] = [];
  if (at && m.loader !== at.loader) {
    issues.push({
      path: `${file}: loader`,
      message: `is ${m.loader} but the directory is loader-${at.loader}`,
    });
  }
  if (at && m.process !== at.process) {
    issues.push({
      path: `${file}: process`,
      message: `is ${m.process} but the directory is proc-${at.process}`,
    });
  }
  if (issues.length) throw new InputError(issues);
  return m;
}

/** Parses a manifest's text (see checkManifest). */
export function parseManifest(
  text: string,
  file: string,
  at?: { loader: number; process: number },
): ProcessManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputError([{ path: file, message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return checkManifest(doc, file, at);
}

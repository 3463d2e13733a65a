/**
 * The loader job: what StartLoad/StartCell write for one loader (`<phase prefix>/jobs/<instance>.json`)
 * and the loader agent runs — which cell, which phase, the YCSB binding and the YCSB properties of each
 * of its processes, as the planner set them. One schema, imported by the pipeline (which builds jobs),
 * the agent (which validates and runs them) and the tests. The agent adds only what is its own: output
 * paths, the summary exporter, the status interval (AGENT_OWNED_PROPERTIES); a job may not carry those.
 *
 * Pure: `parseJob` checks a parsed document and returns every problem with its JSON path; the agent adds
 * the checks that need its disk (property files).
 */
import { z } from 'zod';
import type { Issue } from '../common/errors';
import { BINDINGS, BINDING_IDS } from './bindings';
import { zodErrorIssues } from '../spec/errors';

/** YCSB 0.17.0 parses operationcount, insertcount and threadcount as Java ints. */
export const YCSB_INT_MAX = 2_147_483_647;

/**
 * YCSB properties the loader agent sets itself (output paths, exporter, status interval, the binding
 * class): the planner never sets them, and the agent rejects a job that does.
 */
export const AGENT_OWNED_PROPERTIES = [
  'hdrhistogram.fileoutput',
  'hdrhistogram.output.path',
  'exporter',
  'exportfile',
  'status.interval',
  'db',
  'dotransactions',
  'measurementtype',
  // where the agent put a user binding's jars (bindingJars)
  'fleetbench.binding.classpath',
] as const;

/**
 * The JVM options a job may carry (`jvmArgs`): heap and garbage-collector settings only, each as a whole
 * argument. Anything else (`-javaagent:`, `-cp`, `-D…`, `-XX:OnOutOfMemoryError=…`, `@argfiles`, `-jar`) is
 * refused by the agent (parseJob) and by Plan, which runs the same check on the jobs it builds: a job may
 * size the JVM, not change what it runs. Documented in loader/agent/README.md.
 */
export const JVM_ARG_ALLOW_LIST: readonly { pattern: RegExp; example: string }[] = [
  // heap, initial heap, thread stack, metaspace/direct memory sizes: -Xmx4g, -Xms512m, -Xss1m
  { pattern: /^-X(mx|ms|ss|mn)[0-9]{1,6}[kKmMgG]?$/, example: '-Xmx4g' },
  {
    pattern: /^-XX:(MaxMetaspaceSize|MaxDirectMemorySize|MaxNewSize|NewSize)=[0-9]{1,6}[kKmMgG]?$/,
    example: '-XX:MaxDirectMemorySize=1g',
  },
  // heap as a share of the instance's memory: -XX:MaxRAMPercentage=75.0
  {
    pattern: /^-XX:(MaxRAMPercentage|InitialRAMPercentage|MinRAMPercentage)=[0-9]{1,3}(\.[0-9]{1,2})?$/,
    example: '-XX:MaxRAMPercentage=75',
  },
  // the collector: -XX:+UseG1GC, -XX:+UseZGC, -XX:+UseParallelGC, -XX:+UseSerialGC, -XX:+UseShenandoahGC
  { pattern: /^-XX:\+Use(G1|Z|Parallel|Serial|Shenandoah)GC$/, example: '-XX:+UseG1GC' },
  // G1/ZGC tuning: pause goal, region size, GC threads, generational ZGC
  {
    pattern:
      /^-XX:(MaxGCPauseMillis|G1HeapRegionSize|ParallelGCThreads|ConcGCThreads|InitiatingHeapOccupancyPercent)=[0-9]{1,6}[kKmM]?$/,
    example: '-XX:MaxGCPauseMillis=50',
  },
  {
    pattern: /^-XX:[+-](ZGenerational|AlwaysPreTouch|UseStringDeduplication|UseCompressedOops)$/,
    example: '-XX:+AlwaysPreTouch',
  },
];

/** Why a JVM option is refused (undefined when the allow-list admits it). */
export function jvmArgProblem(arg: string): string | undefined {
  if (JVM_ARG_ALLOW_LIST.some((a) => a.pattern.test(arg))) return undefined;
  return (
    `${JSON.stringify(arg)} is not an allowed JVM option: jobs may set heap and garbage-collector options only ` +
    `(e.g. ${JVM_ARG_ALLOW_LIST.map((a) => a.example).join(', ')}; loader/agent/README.md lists them)`
  );
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** A YCSB property name the agent accepts in a job (the spec checks the same rule: lib/core/spec/properties.ts). */
export const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
const JAVA_CLASS = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)+$/;

export const PropertyValue = z.union([z.string(), z.number(), z.boolean()]);
/** One YCSB process's properties (`-P` file), by name. */
export const YcsbProperties = z.record(
  z.string().regex(PROPERTY_NAME, 'a YCSB property name'),
  PropertyValue,
);
export type YcsbProperties = z.output<typeof YcsbProperties>;

export const JobCredentials = z.strictObject({
  secretArn: z.string().regex(/^arn:aws[a-z-]*:secretsmanager:/, 'a Secrets Manager secret ARN'),
  /** which binding's secret layout (lib/core/contract/bindings.ts) */
  binding: z.enum(BINDING_IDS),
});
export type JobCredentials = z.output<typeof JobCredentials>;

export const JobSchema = z
  .object({
    runId: z
      .string()
      .regex(ID, 'a run id: letters, digits, . _ - (max 128), starting with a letter or digit'),
    cellId: z
      .string()
      .regex(ID, 'a cell id: letters, digits, . _ - (max 128), starting with a letter or digit'),
    loaderIndex: z.number().int().min(0),
    /**
     * The execution the job belongs to (a resumed run's own execution, else the run id): the agent runs one job once
     * per execution (its job lock, loader/agent/src/job-lock.ts), so a resume that meets a loader of the failed
     * execution still runs its jobs. Absent in jobs written before it existed.
     */
    execution: z.string().min(1).max(128).optional(),
    phase: z.enum(['load', 'run']),
    /** One YCSB property map per process; P = its length. */
    processes: z.array(YcsbProperties).min(1).max(64),
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
    /** The YCSB `DB` class (`-db`); default the DynamoDB-API binding. */
    db: z.string().regex(JAVA_CLASS, 'a fully qualified Java class name').default(BINDINGS.dynamodb.dbClass),
    /**
     * A user's YCSB binding: its jars (store URIs: s3://… or file://…), fetched by the agent into a directory
     * of their own and loaded by the Launcher in their own class loader (`db` is then the binding's class).
     */
    bindingJars: z
      .array(z.string().regex(/^(s3|file):\/\/\S+\.jar$/, 'an s3:// or file:// URI of a .jar'))
      .max(100)
      .optional(),
    /**
     * The SHA-256 (lowercase hex) of each of bindingJars, in the same order, as Plan read them: the agent
     * refuses a jar whose bytes hash otherwise before any JVM starts. Required with bindingJars.
     */
    bindingJarSha256: z
      .array(z.string().regex(SHA256_HEX, 'a SHA-256 digest: 64 lowercase hex digits'))
      .max(100)
      .optional(),
    /** Extra `-P` property files, applied before the per-process properties (later wins). */
    propertyFiles: z.array(z.string().min(1)).default([]),
    /** Extra JVM options, e.g. ["-Xmx1g"]: heap and GC options of JVM_ARG_ALLOW_LIST only. */
    jvmArgs: z.array(z.string().min(1)).default([]),
    /**
     * The target's credentials, by reference: the agent fetches the secret at job start and hands it
     * to the JVMs in their environment (never in property files, the manifest or logs).
     */
    credentials: JobCredentials.optional(),
    /** A process fails when more than this fraction of its database calls (YCSB's Return= counts: a read-modify-write's read and update each count) returned an error status. */
    maxErrorFraction: z.number().min(0).max(1).default(0.5),
  })
  .strict();

/** A validated job (defaults applied). */
export type Job = z.output<typeof JobSchema>;
/** A job as the pipeline writes it (defaults may be left out). */
export type JobInput = z.input<typeof JobSchema>;

/**
 * Checks a job document (parsed JSON): the schema, then the rules across fields (agent-owned
 * properties, YCSB's int range, the run phase's operationcount, disjoint load ranges). The rules also
 * run when the schema failed, on whatever fields have the right type, so one pass reports every problem.
 */
export function parseJob(doc: unknown, base = 'job'): { job: Job | null; issues: Issue[] } {
  const parsed = JobSchema.safeParse(doc);
  const issues: Issue[] = parsed.success ? [] : zodErrorIssues(parsed.error, JobSchema, doc, { under: base });
  const raw = (
    parsed.success ? parsed.data : typeof doc === 'object' && doc !== null ? doc : {}
  ) as Partial<Job>;
  const phase = raw.phase === 'load' || raw.phase === 'run' ? raw.phase : undefined;
  const processes = Array.isArray(raw.processes) ? raw.processes : [];
  processes.forEach((props, j) => {
    if (typeof props !== 'object' || props === null || Array.isArray(props)) return;
    checkProcess(props, j, phase, base, issues);
  });
  if (phase === 'load') checkLoadRanges(processes, base, issues);
  checkJvmArgs(raw.jvmArgs, base, issues);
  checkJarDigests(raw, base, issues);
  return { job: parsed.success && issues.length === 0 ? parsed.data : null, issues };
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
      v > YCSB_INT_MAX
    ) {
      issues.push({
        path: at(name),
        message: `must be an integer 0..${YCSB_INT_MAX}, got ${JSON.stringify(props[name])}`,
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

function checkJvmArgs(args: unknown, base: string, issues: Issue[]): void {
  if (!Array.isArray(args)) return;
  args.forEach((a, k) => {
    const problem = typeof a === 'string' ? jvmArgProblem(a) : undefined;
    if (problem) issues.push({ path: `${base}.jvmArgs[${k}]`, message: problem });
  });
}

/** bindingJars and bindingJarSha256 come together, one digest per jar. */
function checkJarDigests(raw: Partial<Job>, base: string, issues: Issue[]): void {
  const jars = Array.isArray(raw.bindingJars) ? raw.bindingJars : [];
  const digests = raw.bindingJarSha256;
  if (jars.length && !Array.isArray(digests)) {
    issues.push({
      path: `${base}.bindingJarSha256`,
      message: "is required with bindingJars: each jar's SHA-256, which the agent verifies before use",
    });
  } else if (Array.isArray(digests) && digests.length !== jars.length) {
    issues.push({
      path: `${base}.bindingJarSha256`,
      message: `has ${digests.length} digest(s) for ${jars.length} binding jar(s): one per jar, in order`,
    });
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
    const prev = ranges[k - 1]!;
    const cur = ranges[k]!;
    if (cur.start < prev.start + prev.count) {
      issues.push({
        path: `${base}.processes[${cur.j}].insertstart`,
        message: `load range [${cur.start}, ${cur.start + cur.count}) overlaps processes[${prev.j}] [${prev.start}, ${prev.start + prev.count}); use disjoint insertstart/insertcount`,
      });
    }
  }
}

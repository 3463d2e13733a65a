/**
 * Reading a job document on the loader: the schema and its rules are the pipeline's
 * (lib/core/contract/job.ts); here only what needs the loader's disk — property files exist — and
 * reading the job from a path, a file:// URI or an s3:// URI.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError, type Issue } from '../../../lib/core/common/errors';
import { ObjectStore, parseStoreUri, splitObjectUri } from '../../../lib/core/common/store';
import { parseJob, type Job } from '../../../lib/core/contract/job';

export type { Job, JobInput } from '../../../lib/core/contract/job';

/**
 * Validates a job document (already parsed JSON). `baseDir` resolves relative property-file paths
 * (the job file's directory, or the working directory). All problems come back in one InputError.
 */
export async function validateJob(doc: unknown, baseDir = process.cwd(), base = 'job'): Promise<Job> {
  const { job, issues } = parseJob(doc, base);
  const raw = (typeof doc === 'object' && doc !== null ? doc : {}) as Partial<Job>;
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
      issues.push(...(await fileIssues(abs, `${base}.propertyFiles[${k}]`)));
      return abs;
    }),
  );
  if (issues.length || !job) throw new InputError(issues);
  job.propertyFiles = resolvedFiles as string[];
  return job;
}

async function fileIssues(abs: string, at: string): Promise<Issue[]> {
  try {
    const st = await fs.stat(abs);
    return st.isFile() ? [] : [{ path: at, message: `${abs} is not a file` }];
  } catch {
    return [{ path: at, message: `property file not found: ${abs}` }];
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

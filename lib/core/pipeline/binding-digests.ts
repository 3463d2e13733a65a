/**
 * The SHA-256 of each jar of a user's binding, read by Plan once: the jobs carry them
 * (`bindingJarSha256`, lib/core/contract/job.ts) and the agent refuses a jar that hashes otherwise, so
 * the loaders run the bytes that were there when the run was planned (not a jar replaced in between).
 */
import { createHash } from 'node:crypto';
import { InputError, type Issue } from '../common/errors';
import type { Plan } from '../plan';
import type { ObjectStore } from '../common/ports';

/** Reads one jar by its URI (the results store's s3:// or file:// URIs; a local run's file:// jars). */
export type JarReader = (uri: string) => Promise<Buffer>;

/** A reader of the jars under the store's root (on AWS: the results bucket's bindings/ prefix). */
export function storeJarReader(store: ObjectStore): JarReader {
  return async (uri) => {
    if (!uri.startsWith(`${store.uri}/`)) throw new Error(`not under ${store.uri}/`);
    return store.get(uri.slice(store.uri.length + 1));
  };
}

/** Adds `jarSha256` to every binding with jars (in place); an InputError names each jar it cannot read. */
export async function addJarDigests(plan: Plan, readJar: JarReader): Promise<void> {
  const issues: Issue[] = [];
  for (const [target, b] of Object.entries(plan.bindings)) {
    if (!b.jars?.length) continue;
    const read = await Promise.all(
      b.jars.map((uri) =>
        readJar(uri).then(
          (bytes) => createHash('sha256').update(bytes).digest('hex'),
          (err: unknown) => new Error(`cannot read ${uri} to record its SHA-256: ${(err as Error).message}`),
        ),
      ),
    );
    for (const r of read)
      if (r instanceof Error) issues.push({ path: `plan.bindings.${target}.jars`, message: r.message });
    b.jarSha256 = read.map((r) => (typeof r === 'string' ? r : ''));
  }
  if (issues.length) throw new InputError(issues);
}

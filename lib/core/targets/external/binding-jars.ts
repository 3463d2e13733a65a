/**
 * A custom binding's s3:// jars on AWS, parsed (bucket and key, `.`/`..` segments refused) and compared with the
 * results bucket's `bindings/` prefix, which is all the loader role may read.
 */
import { InputError, type Issue } from '../../common/errors';
import { parseStoreUri } from '../../common/store';

/** Problems of a binding's jars (`at`: the target's JSON path) on a store at `storeUri` (s3:// stores only). */
export function bindingJarIssues(jars: readonly string[], at: string, storeUri: string): Issue[] {
  if (!storeUri.startsWith('s3://')) return [];
  const store = parseStoreUri(storeUri);
  if (store.scheme !== 's3') return [];
  const bindings = store.prefix ? `${store.prefix}/bindings/` : 'bindings/';
  const issues: Issue[] = [];
  jars.forEach((jar, k) => {
    const path = `${at}.binding.jars[${k}]`;
    try {
      const loc = parseStoreUri(jar, path);
      if (loc.scheme === 's3' && loc.bucket === store.bucket && loc.prefix.startsWith(bindings)) return;
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      issues.push(...err.issues);
      return;
    }
    issues.push({
      path,
      message: `the loaders read binding jars under ${storeUri}/bindings/ only; got ${jar}`,
    });
  });
  return issues;
}

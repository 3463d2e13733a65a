/**
 * Opens the object store a URI names: `s3://…` on S3 (lib/aws/s3-store.ts), `file:///…` or a plain path
 * on the local disk (lib/local/fs-store.ts). It sits above both adapter layers so that neither imports
 * the other (lib/aws never imports lib/local).
 */
import type { ObjectStore } from './core/common/store';
import { parseStoreUri } from './core/common/store';
import { S3Store, type S3StoreOptions } from './aws/s3-store';
import { FsStore } from './local/fs-store';

export function openStore(uri: string, options: S3StoreOptions = {}): ObjectStore {
  if (uri.startsWith('s3://')) return new S3Store(uri, options);
  if (uri.startsWith('file://')) {
    parseStoreUri(uri);
    return new FsStore(uri);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) parseStoreUri(uri); // throws: unsupported scheme
  return new FsStore(uri);
}

/**
 * The object store: one interface over S3 (`s3://bucket/prefix`) and a local directory
 * (`file:///dir`), with the same key layout in both (`runs/<runId>/...`, `tables/<table>/...`).
 *
 * Keys are relative, `/`-separated, never absolute, never with empty, `.` or `..` segments, so a
 * key means the same object in S3 and on disk and cannot escape the store's root directory.
 * This module is pure: the implementations live in `lib/local/fs-store.ts` and `lib/aws/s3-store.ts`.
 */
import { InputError } from './errors';

/** An object that does not exist. Thrown by `get`/`getJson`; `exists` returns false instead. */
export class NotFoundError extends Error {
  readonly uri: string;
  constructor(uri: string) {
    super(`object not found: ${uri}`);
    this.name = 'NotFoundError';
    this.uri = uri;
  }
}

/** A failure of the store itself (permissions, network, disk), with the URI it concerned. */
export class StoreError extends Error {
  readonly uri: string;
  constructor(uri: string, message: string, options?: { cause?: unknown }) {
    super(`${uri}: ${message}`, options);
    this.name = 'StoreError';
    this.uri = uri;
  }
}

export type Body = string | Uint8Array;

export interface PutOptions {
  contentType?: string;
}

export interface ObjectStore {
  /** The store's root, e.g. `s3://bucket/prefix` or `file:///var/results`; keys are relative to it. */
  readonly uri: string;
  put(key: string, body: Body, options?: PutOptions): Promise<void>;
  /** Uploads a local file under `key`. */
  putFile(key: string, localPath: string, options?: PutOptions): Promise<void>;
  /** The object's bytes; NotFoundError when there is none. */
  get(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
  /** Every key under `prefix` (recursively), relative to the store root, sorted. */
  list(prefix?: string): Promise<string[]>;
  /** Parsed JSON; NotFoundError when missing, InputError (naming the object) when not valid JSON. */
  getJson(key: string): Promise<unknown>;
  putJson(key: string, value: unknown): Promise<void>;
  /**
   * Writes the JSON only when no object has the key, so that of two writers racing for a key exactly one wins (on
   * S3 a conditional write, `If-None-Match: *`; on disk a file created exclusively). True when this call wrote it.
   */
  createJson(key: string, value: unknown): Promise<boolean>;
  /** The same store rooted one level deeper (`prefix` must be a valid key). */
  child(prefix: string): ObjectStore;
  /** The URI of one key (for messages and manifests). */
  uriOf(key: string): string;
  /**
   * A link a person can open to read the object: on S3 an HTTPS GET URL presigned for `expiresInSeconds`
   * (SigV4 allows at most 7 days, and the link dies with the signing credentials if they expire sooner);
   * on disk its file:// URI. Presigning is local computation: nothing is sent, and the object need not exist.
   */
  link(key: string, expiresInSeconds: number): Promise<string>;
}

/** SigV4's longest presigned-URL lifetime (7 days). */
export const MAX_LINK_SECONDS = 7 * 24 * 3600;

export type StoreLocation =
  { scheme: 's3'; bucket: string; prefix: string } | { scheme: 'file'; dir: string };

/** `s3://bucket[/prefix]` or `file:///abs/dir` -> its parts; InputError naming `field` otherwise. */
export function parseStoreUri(uri: string, field = 'uri'): StoreLocation {
  const s3 = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(uri);
  if (s3) {
    const bucket = s3[1];
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new InputError([
        { path: field, message: `"${bucket}" is not a valid S3 bucket name (3-63 chars: a-z 0-9 . -)` },
      ]);
    }
    const prefix = (s3[2] ?? '').replace(/\/+$/, '');
    if (prefix !== '') checkKey(prefix, field);
    return { scheme: 's3', bucket, prefix };
  }
  if (uri.startsWith('file://')) {
    let dir = '';
    try {
      const url = new URL(uri);
      if (url.host === '' || url.host === 'localhost') dir = decodeURIComponent(url.pathname);
    } catch {
      dir = '';
    }
    if (!dir.startsWith('/')) {
      throw new InputError([{ path: field, message: `"${uri}" must be file:///absolute/dir` }]);
    }
    return { scheme: 'file', dir: dir.length > 1 ? dir.replace(/\/+$/, '') : dir };
  }
  throw new InputError([
    {
      path: field,
      message: `"${uri}" is not an object-store URI (expected s3://bucket/prefix or file:///dir)`,
    },
  ]);
}

/** Joins key parts with `/` (empty parts dropped). */
export function joinKey(...parts: string[]): string {
  return parts
    .filter((p) => p !== '')
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .join('/');
}

/** Throws InputError unless `key` is a valid relative key (see module doc). */
export function checkKey(key: string, field = 'key'): string {
  const problem = keyProblem(key);
  if (problem) throw new InputError([{ path: field, message: `invalid object key "${key}": ${problem}` }]);
  return key;
}

function keyProblem(key: string): string | undefined {
  if (key === '') return 'must not be empty';
  if (key.startsWith('/')) return 'must be relative (no leading /)';
  if (key.includes('\\')) return 'must use / as separator';
  if (key.includes('\0')) return 'must not contain NUL';
  for (const seg of key.split('/')) {
    if (seg === '') return 'must not contain empty segments (//) or end with /';
    if (seg === '.' || seg === '..') return 'must not contain . or .. segments';
  }
  return undefined;
}

/** Splits the URI of one object into its store root (parent "directory") and key. */
export function splitObjectUri(uri: string, field = 'uri'): { root: string; key: string } {
  const loc = parseStoreUri(uri, field);
  if (loc.scheme === 's3') {
    const i = loc.prefix.lastIndexOf('/');
    if (loc.prefix === '')
      throw new InputError([{ path: field, message: `"${uri}" names a bucket, not an object` }]);
    return {
      root: i < 0 ? `s3://${loc.bucket}` : `s3://${loc.bucket}/${loc.prefix.slice(0, i)}`,
      key: loc.prefix.slice(i + 1),
    };
  }
  const i = loc.dir.lastIndexOf('/');
  const parent = loc.dir.slice(0, i) || '/';
  const key = loc.dir.slice(i + 1);
  if (key === '') throw new InputError([{ path: field, message: `"${uri}" names a directory, not a file` }]);
  return { root: fileUri(parent), key };
}

export function fileUri(dir: string): string {
  return 'file://' + dir.split('/').map(encodeURIComponent).join('/');
}

/** Parses JSON bytes read from `uri`; InputError naming the object and the parse problem otherwise. */
export function parseJsonObject(uri: string, bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new InputError([{ path: uri, message: `not valid JSON (${(err as Error).message})` }]);
  }
}

/** The run layout: where one loader process's raw outputs go. */
export function rawProcessKey(runId: string, cellId: string, loader: number, proc: number): string {
  return joinKey('runs', runId, 'cells', cellId, 'raw', `loader-${loader}`, `proc-${proc}`);
}

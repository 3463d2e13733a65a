/**
 * The object store on S3 (`s3://bucket/prefix`), SDK v3. Errors come back as the project's own:
 * a missing object is NotFoundError, anything else a StoreError naming the object's URI.
 * `openStore(uri)` (lib/open-store.ts) picks this or the filesystem store by the URI's scheme.
 */
import { readFile } from 'node:fs/promises';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  Body,
  NotFoundError,
  ObjectStore,
  PutOptions,
  StoreError,
  checkKey,
  joinKey,
  parseJsonObject,
  parseStoreUri,
  MAX_LINK_SECONDS,
} from '../core/common/store';

export interface S3StoreOptions {
  /** A ready client (shared across stores); otherwise one is made from `clientConfig`. */
  client?: S3Client;
  clientConfig?: S3ClientConfig;
}

export class S3Store implements ObjectStore {
  readonly uri: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly client: S3Client;

  constructor(uri: string, options: S3StoreOptions = {}) {
    const loc = parseStoreUri(uri);
    if (loc.scheme !== 's3') throw new StoreError(uri, 'S3Store needs an s3:// URI');
    this.bucket = loc.bucket;
    this.prefix = loc.prefix;
    this.uri = loc.prefix ? `s3://${loc.bucket}/${loc.prefix}` : `s3://${loc.bucket}`;
    this.client = options.client ?? new S3Client(options.clientConfig ?? {});
  }

  uriOf(key: string): string {
    return `${this.uri}/${key}`;
  }

  private objectKey(key: string): string {
    return joinKey(this.prefix, checkKey(key));
  }

  async put(key: string, body: Body, options: PutOptions = {}): Promise<void> {
    const Key = this.objectKey(key);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    await this.call(key, () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key,
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: options.contentType ?? guessContentType(key),
        }),
      ),
    );
  }

  async putFile(key: string, localPath: string, options: PutOptions = {}): Promise<void> {
    // Raw outputs (HDR logs, summaries, logs) are small enough to send in one request.
    let bytes: Buffer;
    try {
      bytes = await readFile(localPath);
    } catch (err) {
      throw new StoreError(this.uriOf(key), `cannot read ${localPath}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    await this.put(key, bytes, options);
  }

  async get(key: string): Promise<Buffer> {
    const Key = this.objectKey(key);
    const out = await this.call(key, () =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key })),
    );
    if (!out.Body) return Buffer.alloc(0);
    return Buffer.from(await out.Body.transformToByteArray());
  }

  async exists(key: string): Promise<boolean> {
    const Key = this.objectKey(key);
    try {
      await this.call(key, () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key })));
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  async list(prefix = ''): Promise<string[]> {
    const base = this.prefix ? this.prefix + '/' : '';
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(prefix, () =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: base + prefix, ContinuationToken: token }),
        ),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(base.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async getJson(key: string): Promise<unknown> {
    return parseJsonObject(this.uriOf(key), await this.get(key));
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.put(key, JSON.stringify(value, null, 2) + '\n', { contentType: 'application/json' });
  }

  async createJson(key: string, value: unknown): Promise<boolean> {
    const bytes = Buffer.from(JSON.stringify(value, null, 2) + '\n', 'utf8');
    const put = () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: 'application/json',
          // S3 conditional writes: https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html
          IfNoneMatch: '*',
        }),
      );
    for (let attempt = 0; ; attempt++) {
      try {
        await put();
        return true;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        // 412: the key exists (another writer won); 409: a concurrent conditional write to it, which S3 asks to retry
        if (status === 412) return false;
        if (status === 409 && attempt < 4) {
          await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
          continue;
        }
        throw translateS3Error(this.uriOf(key), err);
      }
    }
  }

  async link(key: string, expiresInSeconds: number): Promise<string> {
    if (!(
      Number.isInteger(expiresInSeconds) &&
      expiresInSeconds >= 1 &&
      expiresInSeconds <= MAX_LINK_SECONDS
    )) {
      throw new StoreError(
        this.uriOf(key),
        `link lifetime must be 1..${MAX_LINK_SECONDS} s, got ${expiresInSeconds}`,
      );
    }
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
    return this.call(key, () => getSignedUrl(this.client, command, { expiresIn: expiresInSeconds }));
  }

  child(prefix: string): ObjectStore {
    return new S3Store(`s3://${this.bucket}/${joinKey(this.prefix, checkKey(joinKey(prefix), 'prefix'))}`, {
      client: this.client,
    });
  }

  /** Runs one SDK call, translating its errors into NotFoundError / StoreError. */
  private async call<T>(key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translateS3Error(this.uriOf(key), err);
    }
  }
}

export function translateS3Error(uri: string, err: unknown): Error {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  if (e?.name === 'NoSuchKey' || e?.name === 'NotFound' || (status === 404 && e?.name !== 'NoSuchBucket')) {
    return new NotFoundError(uri);
  }
  const what =
    e?.name === 'NoSuchBucket' ? 'bucket does not exist' : `${e?.name ?? 'Error'}: ${e?.message ?? err}`;
  return new StoreError(uri, status ? `${what} (HTTP ${status})` : what, { cause: err });
}

function guessContentType(key: string): string {
  if (key.endsWith('.json')) return 'application/json';
  if (key.endsWith('.html')) return 'text/html; charset=utf-8';
  if (key.endsWith('.hdr') || key.endsWith('.log') || key.endsWith('.txt')) return 'text/plain';
  return 'application/octet-stream';
}

/**
 * The object store on a local directory (`file:///dir`): key `a/b/c` is the file `<dir>/a/b/c`.
 * Writes go to a temporary sibling and are renamed into place, so a reader never sees half an object.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  Body,
  NotFoundError,
  ObjectStore,
  StoreError,
  checkKey,
  fileUri,
  joinKey,
  parseJsonObject,
  parseStoreUri,
} from '../core/common/store';

export class FsStore implements ObjectStore {
  readonly uri: string;
  readonly dir: string;

  constructor(dirOrUri: string) {
    const dir = dirOrUri.startsWith('file://')
      ? (parseStoreUri(dirOrUri) as { dir: string }).dir
      : path.resolve(dirOrUri);
    this.dir = dir;
    this.uri = fileUri(dir);
  }

  uriOf(key: string): string {
    return `${this.uri}/${key}`;
  }

  private pathOf(key: string): string {
    return path.join(this.dir, ...checkKey(key).split('/'));
  }

  async put(key: string, body: Body): Promise<void> {
    const file = this.pathOf(key);
    await this.wrap(key, async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      await fs.writeFile(tmp, body);
      await fs.rename(tmp, file);
    });
  }

  async createJson(key: string, value: unknown): Promise<boolean> {
    const file = this.pathOf(key);
    return this.wrap(key, async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      // written whole under a temporary name, then linked into place: link() fails when the name exists, so one
      // writer wins and a reader never sees half an object
      const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      await fs.writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
      try {
        await fs.link(tmp, file);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw err;
      } finally {
        await fs.rm(tmp, { force: true });
      }
    });
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const file = this.pathOf(key);
    await this.wrap(key, async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      await fs.copyFile(localPath, tmp);
      await fs.rename(tmp, file);
    });
  }

  async get(key: string): Promise<Buffer> {
    const file = this.pathOf(key);
    try {
      return await fs.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR')
        throw new NotFoundError(this.uriOf(key));
      throw new StoreError(this.uriOf(key), (err as Error).message, { cause: err });
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.pathOf(key))).isFile();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw new StoreError(this.uriOf(key), (err as Error).message, { cause: err });
    }
  }

  async list(prefix = ''): Promise<string[]> {
    // A prefix is a string prefix of keys (as in S3), not only a directory: list its directory and filter.
    const dirPart = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    if (dirPart !== '') checkKey(dirPart, 'prefix');
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(rel === '' ? this.dir : path.join(this.dir, ...rel.split('/')), {
          withFileTypes: true,
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return;
        throw new StoreError(this.uriOf(rel), (err as Error).message, { cause: err });
      }
      for (const e of entries) {
        const key = rel === '' ? e.name : `${rel}/${e.name}`;
        if (e.isDirectory()) {
          if (key.startsWith(prefix) || prefix.startsWith(key + '/')) await walk(key);
        } else if (e.isFile() && key.startsWith(prefix) && !/\.tmp-\d+-[a-z0-9]+$/.test(e.name)) {
          out.push(key);
        }
      }
    };
    await walk(dirPart);
    return out.sort();
  }

  async getJson(key: string): Promise<unknown> {
    return parseJsonObject(this.uriOf(key), await this.get(key));
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.put(key, JSON.stringify(value, null, 2) + '\n');
  }

  /** The object's file:// URI (a local file needs no signature; the lifetime does not apply). */
  async link(key: string, _expiresInSeconds?: number): Promise<string> {
    return this.uriOf(checkKey(key));
  }

  child(prefix: string): ObjectStore {
    return new FsStore(path.join(this.dir, ...checkKey(joinKey(prefix), 'prefix').split('/')));
  }

  private async wrap<T>(key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new StoreError(this.uriOf(key), (err as Error).message, { cause: err });
    }
  }
}

/**
 * An object store that reads the store beneath it and keeps every write in memory: a step run over it (the
 * Plan check before a local run starts) sees the results directory as the run will (its refreshed price books,
 * its file:// URI in the jobs) and leaves nothing on disk.
 */
import { checkKey, parseJsonObject, type Body, type ObjectStore } from '../core/common/store';

export class DryStore implements ObjectStore {
  readonly uri: string;
  private readonly written = new Map<string, Buffer>();

  constructor(private readonly base: ObjectStore) {
    this.uri = base.uri;
  }

  uriOf(key: string): string {
    return this.base.uriOf(key);
  }

  async put(key: string, body: Body): Promise<void> {
    this.written.set(checkKey(key), Buffer.from(body));
  }

  async putFile(key: string, _localPath: string): Promise<void> {
    throw new Error(`${this.uriOf(key)}: a dry run uploads no file`);
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.put(key, JSON.stringify(value, null, 2) + '\n');
  }

  async createJson(key: string, value: unknown): Promise<boolean> {
    if (await this.exists(key)) return false;
    await this.putJson(key, value);
    return true;
  }

  async get(key: string): Promise<Buffer> {
    const own = this.written.get(checkKey(key));
    return own ?? this.base.get(key);
  }

  async exists(key: string): Promise<boolean> {
    return this.written.has(checkKey(key)) || this.base.exists(key);
  }

  async list(prefix = ''): Promise<string[]> {
    const own = [...this.written.keys()].filter((k) => k.startsWith(prefix));
    return [...new Set([...(await this.base.list(prefix)), ...own])].sort();
  }

  async getJson(key: string): Promise<unknown> {
    return parseJsonObject(this.uriOf(key), await this.get(key));
  }

  child(prefix: string): ObjectStore {
    throw new Error(`${this.uriOf(prefix)}: a dry run's store has no child stores`);
  }

  async link(key: string, expiresInSeconds: number): Promise<string> {
    return this.base.link(key, expiresInSeconds);
  }
}

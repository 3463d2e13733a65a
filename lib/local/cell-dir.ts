/**
 * One cell's raw outputs in a local directory (`<dir>/loader-<i>/proc-<j>/`), read through the same
 * object-store reader the AggregateCell step uses on S3 (lib/core/results/input.ts).
 */
import { promises as fs } from 'node:fs';
import { InputError } from '../core/common/errors';
import { readCell, type CellInput } from '../core/results/input';
import { FsStore } from './fs-store';

export async function readCellDir(dir: string): Promise<CellInput> {
  let isDir: boolean;
  try {
    isDir = (await fs.stat(dir)).isDirectory();
  } catch {
    throw new InputError([
      { path: dir, message: 'no such directory (expected loader-<i>/proc-<j>/ outputs)' },
    ]);
  }
  if (!isDir) throw new InputError([{ path: dir, message: 'not a directory' }]);
  return readCell(new FsStore(dir));
}

/** Missing and malformed cell inputs: each has its own clear error or incomplete marker. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseManifest } from '../../../lib/core/contract/manifest';
import { readCellDir } from '../../../lib/local/cell-dir';
import { aggregateCell } from '../../../lib/core/results/aggregate';
import { InputError } from '../../../lib/core/common/errors';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');
let tmp: string;
let n = 0;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-agg-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function copy(): string {
  const dir = path.join(tmp, `cell-${n++}`);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError');
}

async function rejected(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => new Error('expected an InputError'),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe('cell input', () => {
  it('reads the real fixture completely', async () => {
    const cell = await readCellDir(FIXTURE);
    expect(cell.processes.map((p) => p.label)).toEqual([
      'loader-0/proc-0',
      'loader-0/proc-1',
      'loader-1/proc-0',
      'loader-1/proc-1',
    ]);
    expect(cell.processes.every((p) => p.problems.length === 0)).toBe(true);
    expect(cell.processes[0].logs.map((l) => l.name)).toContain('Intended-READ');
  });

  it('a missing directory is an InputError', async () => {
    const e = await rejected(readCellDir(path.join(tmp, 'nope')));
    expect(e.message).toMatch(/nope: no such directory/);
  });

  it('an empty directory is an InputError', async () => {
    const dir = path.join(tmp, 'empty');
    fs.mkdirSync(dir);
    const e = await rejected(readCellDir(dir));
    expect(e.message).toMatch(/empty: no loader output \(expected loader-<i>\/proc-<j>\//);
  });

  it('a process without its manifest makes the cell incomplete, naming it', async () => {
    const dir = copy();
    fs.rmSync(path.join(dir, 'loader-1/proc-0/manifest.json'));
    const agg = await aggregateCell(await readCellDir(dir), {});
    expect(agg.incomplete).toEqual([
      'loader-1/proc-0: no manifest.json (the agent did not finish this process)',
    ]);
    // its logs still count: nothing is silently dropped
    expect(agg.processes).toHaveLength(4);
  });

  it('a missing summary makes the cell incomplete, naming the process', async () => {
    const dir = copy();
    fs.rmSync(path.join(dir, 'loader-0/proc-1/summary.json'));
    const agg = await aggregateCell(await readCellDir(dir), {});
    expect(agg.incomplete).toEqual([
      'loader-0/proc-1: no summary.json (YCSB did not write its end-of-run summary)',
    ]);
  });

  it('a non-zero exit code makes the cell incomplete', async () => {
    const dir = copy();
    const f = path.join(dir, 'loader-0/proc-0/manifest.json');
    fs.writeFileSync(f, JSON.stringify({ ...JSON.parse(fs.readFileSync(f, 'utf8')), exitCode: 137 }));
    expect((await aggregateCell(await readCellDir(dir), {})).incomplete).toEqual([
      'loader-0/proc-0: YCSB exited with code 137',
    ]);
  });

  it('a malformed manifest names the file and field', () => {
    const e = inputError(() =>
      parseManifest('{"loader":0,"process":"x","exitCode":0,"startMs":1}', 'm.json'),
    );
    expect(e.issues).toEqual([
      { path: 'm.json: process', message: 'expected number, found the string "x"' },
      {
        path: 'm.json: phase',
        message: 'required: expected one of "load", "run", found nothing (the field is missing)',
      },
      { path: 'm.json: host', message: 'required: expected string, found nothing (the field is missing)' },
      { path: 'm.json: endMs', message: 'required: expected number, found nothing (the field is missing)' },
    ]);
    expect(inputError(() => parseManifest('{oops', 'm.json')).message).toMatch(/m\.json: not valid JSON/);
    expect(inputError(() => parseManifest('[]', 'm.json')).message).toBe(
      'm.json: expected a JSON object (a process manifest)',
    );
    const good = { loader: 1, process: 0, phase: 'run', host: 'h', exitCode: 0, startMs: 1, endMs: 2 };
    expect(parseManifest(JSON.stringify(good), 'm.json')).toEqual(good);
    expect(
      inputError(() => parseManifest(JSON.stringify(good), 'm.json', { loader: 0, process: 0 })).message,
    ).toBe('m.json: loader: is 1 but the directory is loader-0');
    expect(
      inputError(() =>
        parseManifest(JSON.stringify({ ...good, startMs: 3, counts: { READ: { OK: -1 } } }), 'm.json'),
      ).issues,
    ).toEqual([
      { path: 'm.json: counts.READ.OK', message: 'expected a number at least 0, found number -1' },
      { path: 'm.json: endMs', message: 'must not be before startMs' },
    ]);
  });

  it('a corrupt log in the cell names file:line', async () => {
    const dir = copy();
    const f = path.join(dir, 'loader-1/proc-1/READ.hdr');
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    lines[6] = lines[6].slice(0, lines[6].length - 3);
    fs.writeFileSync(f, lines.join('\n'));
    const e = await rejected(readCellDir(dir).then((c) => aggregateCell(c, {})));
    // the object's URI in the store the cell was read from
    expect(e.issues[0].path).toBe(`file://${f}:7`);
  });

  it('a warm-up longer than the cell is an InputError', async () => {
    const e = await rejected(readCellDir(FIXTURE).then((c) => aggregateCell(c, { warmupSeconds: 60 })));
    expect(e.message).toMatch(/leave no measured window/);
  });
});

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { loadJob, validateJob } from '../../../loader/agent/src/job';
import { BINDINGS } from '../../../lib/core/contract/bindings';
import { openStore } from '../../../lib/open-store';

const good = () => ({
  runId: 'r-2026-01',
  cellId: 'c0',
  loaderIndex: 0,
  phase: 'run',
  processes: [
    { recordcount: 1000, operationcount: 2000000000, target: 200, requestdistribution: 'zipfian' },
    { recordcount: 1000, operationcount: 2000000000, target: 200, requestdistribution: 'zipfian' },
  ],
  durationSeconds: 20,
  outputPrefix: 'file:///tmp/fb/runs/r-2026-01/cells/c0/raw',
});

async function issuesOf(doc: unknown, baseDir?: string): Promise<{ path: string; message: string }[]> {
  try {
    await validateJob(doc, baseDir);
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('job validation', () => {
  test('a good job gets its defaults', async () => {
    const job = await validateJob(good());
    expect(job.db).toBe(BINDINGS.dynamodb.dbClass);
    expect(job.graceSeconds).toBe(60);
    expect(job.statusIntervalSeconds).toBe(10);
    expect(job.propertyFiles).toEqual([]);
    expect(job.processes).toHaveLength(2);
  });

  test('missing field is named', async () => {
    const doc: Record<string, unknown> = good();
    delete doc.cellId;
    expect(await issuesOf(doc)).toEqual([
      { path: 'job.cellId', message: 'required: expected string, found nothing (the field is missing)' },
    ]);
  });

  test('wrong phase is named with the allowed values', async () => {
    const issues = await issuesOf({ ...good(), phase: 'warmup' });
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe('job.phase');
    expect(issues[0].message).toBe('expected one of "load", "run", found the string "warmup"');
  });

  test('unknown property file is named with its resolved path, relative to the job directory', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-job-'));
    await fs.writeFile(path.join(dir, 'ok.properties'), 'fieldcount=10\n');
    const issues = await issuesOf({ ...good(), propertyFiles: ['ok.properties', 'missing.properties'] }, dir);
    expect(issues).toEqual([
      {
        path: 'job.propertyFiles[1]',
        message: `property file not found: ${path.join(dir, 'missing.properties')}`,
      },
    ]);
    const job = await validateJob({ ...good(), propertyFiles: ['ok.properties'] }, dir);
    expect(job.propertyFiles).toEqual([path.join(dir, 'ok.properties')]);
    await fs.rm(dir, { recursive: true });
  });

  test('every problem is reported at once, schema and semantic ones together', async () => {
    const issues = await issuesOf({
      ...good(),
      loaderIndex: -1,
      outputPrefix: 'ftp://x/y',
      extra: 1,
      processes: [{ recordcount: 10, operationcount: 0, exportfile: '/tmp/x' }],
    });
    const paths = issues.map((i) => i.path).sort();
    expect(paths).toEqual([
      'job.extra',
      'job.loaderIndex',
      'job.outputPrefix',
      'job.processes[0].exportfile',
      'job.processes[0].operationcount',
    ]);
    expect(issues.find((i) => i.path === 'job.extra')?.message).toMatch(
      /^unknown key; expected one of: .*cellId/,
    );
    expect(issues.find((i) => i.path.endsWith('operationcount'))?.message).toMatch(/zero threads/);
    expect(issues.find((i) => i.path.endsWith('exportfile'))?.message).toMatch(/set by the agent/);
  });

  test('run phase needs operationcount', async () => {
    const issues = await issuesOf({ ...good(), processes: [{ recordcount: 10 }] });
    expect(issues).toEqual([expect.objectContaining({ path: 'job.processes[0].operationcount' })]);
  });

  test('load ranges must be disjoint and inside recordcount', async () => {
    const load = {
      ...good(),
      phase: 'load',
      processes: [
        { recordcount: 20000, insertstart: 0, insertcount: 10000 },
        { recordcount: 20000, insertstart: 9999, insertcount: 10000 },
        { recordcount: 20000, insertstart: 19999, insertcount: 2 },
      ],
    };
    const issues = await issuesOf(load);
    expect(issues.map((i) => i.path).sort()).toEqual([
      'job.processes[1].insertstart',
      'job.processes[2].insertcount',
    ]);
    expect(issues.find((i) => i.path === 'job.processes[1].insertstart')?.message).toContain(
      'overlaps processes[0]',
    );
    const ok = {
      ...load,
      processes: [
        { recordcount: 20000, insertstart: 0, insertcount: 10000 },
        { recordcount: 20000, insertstart: 10000, insertcount: 10000 },
      ],
    };
    // adjacent ranges are accepted as they are
    await expect(validateJob(ok)).resolves.toMatchObject({ phase: 'load', processes: ok.processes });
  });

  test('counts must be integers', async () => {
    const issues = await issuesOf({ ...good(), processes: [{ operationcount: '1e3x', threadcount: true }] });
    expect(issues.map((i) => i.path).sort()).toEqual([
      'job.processes[0].operationcount',
      'job.processes[0].threadcount',
    ]);
  });

  test('loadJob reads a local path and a file:// URI; a missing file is an InputError', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-job-'));
    const file = path.join(dir, 'job.json');
    await fs.writeFile(file, JSON.stringify(good()));
    const open = (u: string) => openStore(u);
    expect((await loadJob(file, open)).job.runId).toBe('r-2026-01');
    expect((await loadJob(`file://${file}`, open)).job.cellId).toBe('c0');
    await expect(loadJob(path.join(dir, 'nope.json'), open)).rejects.toBeInstanceOf(InputError);
    await fs.writeFile(file, '{"runId":');
    const err = await loadJob(file, open).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues[0].path).toBe(file);
    await fs.rm(dir, { recursive: true });
  });
});

describe('jvmArgs allow-list and binding jar digests', () => {
  test('heap and GC options pass; anything else is refused with the allow-list named', async () => {
    const ok = ['-Xmx4g', '-Xms512m', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=50', '-XX:MaxRAMPercentage=75.0'];
    await expect(validateJob({ ...good(), jvmArgs: ok })).resolves.toMatchObject({ jvmArgs: ok });
    const issues = await issuesOf({
      ...good(),
      jvmArgs: [
        '-Xmx1g',
        '-javaagent:/tmp/x.jar',
        '-XX:OnOutOfMemoryError=sh -c id',
        '-Dfoo=bar',
        '@/tmp/args',
      ],
    });
    expect(issues.map((i) => i.path)).toEqual([
      'job.jvmArgs[1]',
      'job.jvmArgs[2]',
      'job.jvmArgs[3]',
      'job.jvmArgs[4]',
    ]);
    expect(issues[0]!.message).toBe(
      '"-javaagent:/tmp/x.jar" is not an allowed JVM option: jobs may set heap and garbage-collector options only ' +
        '(e.g. -Xmx4g, -XX:MaxDirectMemorySize=1g, -XX:MaxRAMPercentage=75, -XX:+UseG1GC, -XX:MaxGCPauseMillis=50, ' +
        '-XX:+AlwaysPreTouch; loader/agent/README.md lists them)',
    );
  });

  test('bindingJars need one SHA-256 each', async () => {
    const jars = { bindingJars: ['s3://b/bindings/a.jar', 's3://b/bindings/b.jar'] };
    expect(await issuesOf({ ...good(), ...jars })).toEqual([
      {
        path: 'job.bindingJarSha256',
        message: "is required with bindingJars: each jar's SHA-256, which the agent verifies before use",
      },
    ]);
    expect(await issuesOf({ ...good(), ...jars, bindingJarSha256: ['a'.repeat(64)] })).toEqual([
      {
        path: 'job.bindingJarSha256',
        message: 'has 1 digest(s) for 2 binding jar(s): one per jar, in order',
      },
    ]);
    expect(
      (await issuesOf({ ...good(), ...jars, bindingJarSha256: ['A'.repeat(64), 'x'] })).map((i) => i.path),
    ).toEqual(['job.bindingJarSha256[0]', 'job.bindingJarSha256[1]']);
  });
});

/**
 * The Report step on the AWS path: S3Store against a real moto server. After Plan, AggregateCell (real YCSB
 * output streamed from S3) and Report, `runs/<runId>/report.html` is under the run's prefix, and the
 * notification's presigned link fetches it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Store } from '../../lib/aws/s3-store';
import {
  aggregateCellStep,
  plan,
  readPlan,
  report,
  reportKey,
  type RunContext,
} from '../../lib/core/pipeline';
import type { Clock } from '../../lib/core/common/ports';
import { reportLink } from '../../lib/core/report/data';
import type { Comparison } from '../../lib/core/report/compare';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(60_000);

const FIXTURE = path.join(__dirname, '../fixtures/ycsb/fleet-small');
const quickstart = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'quickstart.json'), 'utf8'),
) as { workload: Record<string, unknown> };

let moto: MotoServer;
let client: S3Client;

beforeAll(async () => {
  moto = await startMoto();
  client = new S3Client(moto.clientConfig);
  await client.send(new CreateBucketCommand({ Bucket: 'fleetbench-report' }));
});
afterAll(async () => {
  client?.destroy();
  await moto?.stop();
});

const clock: Clock = { nowMs: () => Date.UTC(2026, 10, 23, 12) };

describe('Report on S3 (moto)', () => {
  it('writes report.html under the run prefix and notifies a presigned link that fetches it', async () => {
    const store = new S3Store('s3://fleetbench-report/results', { client });
    // the fixture cell ran ~8 s: a 3 s warm-up leaves a window
    const spec = { ...quickstart, workload: { ...quickstart.workload, warmupSeconds: 3 } };
    const run: RunContext = await plan({ executionName: 'report-1', spec }, { store, clock });
    const cells = (await readPlan(store, run.runId)).cells.map((c) => c.id);
    expect(cells).toEqual(['ddb.uniform.r50.t150', 'ddb.zipfian.r50.t150']);
    const cell0 = cells[0]!;
    for (const e of fs.readdirSync(FIXTURE, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(FIXTURE, path.join(e.parentPath, e.name));
      await store.putFile(`runs/${run.runId}/cells/${cell0}/raw/${rel}`, path.join(FIXTURE, rel));
    }
    const metrics: unknown[] = [];
    await aggregateCellStep(
      { run, index: 0 },
      { store, metrics: { put: async (d, data) => void metrics.push({ d, data }) } },
    );
    const messages: { subject: string; message: string }[] = [];
    const out = await report(
      { run },
      {
        store,
        clock,
        notifier: { publish: async (subject, message) => void messages.push({ subject, message }) },
      },
    );

    const key = `runs/${run.runId}/report.html`;
    expect(reportKey(run.runId)).toBe(key);
    expect(await store.list(`runs/${run.runId}/report`)).toEqual([key]);
    expect(out.reportUri).toBe(`s3://fleetbench-report/results/${key}`);
    expect(out.incomplete).toBe(1); // the second cell has no output

    expect(messages).toHaveLength(1);
    const link = /^Report: (\S+)$/m.exec(messages[0]!.message)?.[1];
    expect(link).toMatch(
      new RegExp(
        `^${moto.endpoint}/fleetbench-report/results/runs/${run.runId}/report\\.html\\?.*X-Amz-Signature=`,
      ),
    );
    expect(link).toContain('X-Amz-Expires=604800');
    const res = await fetch(link!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toBe((await store.get(key)).toString('utf8'));
    expect(html).toContain(cell0);
    expect(html).toContain(`cell ${cells[1]}: no result`);

    // what `fleetbench status` prints: a fresh link, or none for a run without a report
    const fresh = await reportLink(store, run.runId, 3600);
    expect(fresh).toContain('X-Amz-Expires=3600');
    expect(await (await fetch(fresh!)).text()).toBe(html);
    expect(await reportLink(store, 'no-such-run', 3600)).toBeNull();
    // SigV4 allows 1 s to 7 days
    await expect(store.link(key, 0)).rejects.toThrow(/link lifetime must be 1\.\.604800 s, got 0/);
    await expect(store.link(key, 604801)).rejects.toThrow(/got 604801/);
  });

  it("with the spec's baseline, writes compare.json and the comparison into the report", async () => {
    const store = new S3Store('s3://fleetbench-report/results', { client });
    const spec = { ...quickstart, workload: { ...quickstart.workload, warmupSeconds: 3 } };
    const runIds: string[] = [];
    for (const [name, extra] of [
      ['report-base', {}],
      ['report-next', { baseline: 'report-base' }],
    ] as const) {
      const run: RunContext = await plan(
        { executionName: name, spec: { ...spec, ...extra } },
        { store, clock },
      );
      runIds.push(run.runId);
      const cell0 = (await readPlan(store, run.runId)).cells[0]!.id;
      for (const e of fs.readdirSync(FIXTURE, { recursive: true, withFileTypes: true })) {
        if (!e.isFile()) continue;
        const rel = path.relative(FIXTURE, path.join(e.parentPath, e.name));
        await store.putFile(`runs/${run.runId}/cells/${cell0}/raw/${rel}`, path.join(FIXTURE, rel));
      }
      await aggregateCellStep({ run, index: 0 }, { store, metrics: { put: async () => undefined } });
      await report({ run }, { store, clock, notifier: { publish: async () => undefined } });
    }
    expect(runIds).toEqual(['report-base', 'report-next']);
    // the baseline itself names none: no comparison
    expect(await store.exists('runs/report-base/compare.json')).toBe(false);
    const c = (await store.getJson('runs/report-next/compare.json')) as Comparison;
    expect(c.baselineId).toBe('report-base');
    // the same YCSB output in both runs: every figure equal, no change, no significant difference
    expect(c.cells.map((x) => x.cellId)).toEqual(['ddb.uniform.r50.t150']);
    for (const m of c.cells[0]!.metrics) {
      expect({ m: m.metric, change: m.change, verdict: m.verdict }).toEqual({
        m: m.metric,
        change: 0,
        verdict: 'no significant difference',
      });
      if (m.metric !== 'cost') expect(m.ci).not.toBeNull();
    }
    const html = (await store.get('runs/report-next/report.html')).toString('utf8');
    expect(html).toContain('Against baseline <code>report-base</code>');
    expect(
      html.match(
        /<tr data-cell="ddb\.uniform\.r50\.t150" data-metric="\w+" data-verdict="no significant difference">/g,
      ),
    ).toHaveLength(5);
  });
});

/**
 * AggregateCell's CloudWatch join (lib/core/pipeline/table-metrics.ts): the cell's DynamoDB table (the name the run
 * context holds for it: what Plan named, or the `existingTable` reused), the whole cell's range (window less warm-up to window plus cool-down), the minutes written as
 * `capacity` rows where the report reads them; nothing for another kind of target.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { planRun, tableName } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { joinTableMetrics } from '../../../lib/core/pipeline/table-metrics';
import { capacityObjectKey } from '../../../lib/core/results/capacity';
import { fromJsonLines } from '../../../lib/core/results/rows';
import { FsStore } from '../../../lib/local/fs-store';
import type { RunContext } from '../../../lib/core/pipeline/context';
import type { TableMinute } from '../../../lib/core/common/ports';

const spec = validateSpec(
  JSON.parse(readFileSync(path.join(__dirname, '../../../examples/local-split-for-heat.json'), 'utf8')),
).spec;

describe('joinTableMetrics', () => {
  it("reads the cell's table over the whole cell and writes one capacity row per minute", async () => {
    const store = new FsStore(mkdtempSync(path.join(tmpdir(), 'fleetbench-tm-')));
    const target = spec.targets[0]!.id;
    const planned = tableName(spec, spec.targets[0]!, 'r1');
    const table = (name: string, owned: boolean) => ({
      type: 'dynamodb-table',
      targetId: target,
      name,
      owned,
    });
    const runWith = (name: string, owned = true) =>
      ({
        runId: 'r1',
        specName: spec.name,
        startedAtMs: Date.UTC(2026, 10, 27),
        resources: [table(name, owned)],
      }) as unknown as RunContext;
    const run = runWith(planned);
    const cell = { ...planRun(spec, { runId: 'r1' }).cells[0]!, warmupSeconds: 30, cooldownSeconds: 10 };
    const asked: { table: string; range: { startMs: number; endMs: number } }[] = [];
    const minute = (startMs: number): TableMinute => ({
      startMs,
      consumedReadUnits: 6_000,
      consumedWriteUnits: 0,
      readThrottleEvents: 5,
      writeThrottleEvents: 0,
      throttledRequests: { Query: 5 },
    });
    const reader = {
      tableMinutes: (table: string, range: { startMs: number; endMs: number }) => {
        asked.push({ table, range });
        return Promise.resolve([minute(range.startMs), minute(range.startMs + 60_000)]);
      },
    };
    const row = { window_start_ms: run.startedAtMs + 100_000, window_end_ms: run.startedAtMs + 150_000 };
    const n = await joinTableMetrics({ store, tableMetrics: reader }, { run, spec, cell, row });
    expect(n).toBe(2);
    expect(asked).toEqual([
      {
        table: planned,
        range: { startMs: run.startedAtMs + 70_000, endMs: run.startedAtMs + 160_000 },
      },
    ]);
    // a reused table: the context's name, not one the plan would make
    await joinTableMetrics(
      { store, tableMetrics: reader },
      { run: runWith('orders-prod', false), spec, cell, row },
    );
    expect(asked.at(-1)!.table).toBe('orders-prod');
    asked.pop();
    const key = capacityObjectKey(run, cell.id);
    const rows = fromJsonLines([{ text: (await store.get(key)).toString('utf8'), source: key }]).map(
      (r) => r.row,
    );
    expect(rows.map((r) => [r.source, r.consumed_read_units, r.throttled_requests])).toEqual([
      ['cloudwatch', 100, 5],
      ['cloudwatch', 100, 5],
    ]);
    // another kind of target: nothing read, nothing written
    const other = { ...spec, targets: [{ ...spec.targets[0]!, kind: 'external' }] } as unknown as typeof spec;
    expect(await joinTableMetrics({ store, tableMetrics: reader }, { run, spec: other, cell, row })).toBe(0);
    expect(asked).toHaveLength(1);
  });
});

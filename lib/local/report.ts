/**
 * The local mode's run report: the same code as the Report step (lib/core/report/data.ts) writes
 * `runs/<runId>/report.html` into the results directory.
 */
import * as path from 'node:path';
import { writeReport } from '../core/report/data';
import type { ObjectStore } from '../core/common/store';

export { buildReportData, historyOf, reportCellOf, seriesOf } from '../core/report/data';

/** Writes the report into the store and returns its path on disk. */
export async function writeRunReport(
  store: ObjectStore,
  resultsDir: string,
  runId: string,
  status: string,
): Promise<string> {
  const key = await writeReport(store, runId, status, { local: true });
  return path.join(resultsDir, ...key.split('/'));
}

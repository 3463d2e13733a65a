/**
 * `fleetbench results <runId> [--stack <name>] [--region <r>] [--spec <name>] [--json]`: the run's
 * summary from Athena (the stack's workgroup and Glue database): the runs row and one line per cell.
 */
import type { Command } from 'commander';
import { AthenaResults } from '../../aws/athena-results';
import { S3Store } from '../../aws/s3-store';
import { headlineOf } from '../../core/contract/headline';
import { InputError } from '../../core/common/errors';
import { contextKey, type RunContext } from '../../core/pipeline';
import {
  FRONTIER_HEADERS,
  RUN_FRONTIER_SQL,
  frontierRows,
  RUN_CELLS_SQL,
  RUN_ROW_SQL,
  SUMMARY_HEADERS,
  runLine,
  summaryRows,
} from '../../core/results/run-summary';
import { NotFoundError } from '../../core/common/store';
import { addAwsOptions, clientConfig, stackOutputs, type AwsOptions } from '../aws-stack';
import { table } from '../table';

interface ResultsOptions extends AwsOptions {
  spec?: string;
  json?: boolean;
}

export function register(program: Command): void {
  addAwsOptions(
    program
      .command('results')
      .description("print a run's per-cell summary from Athena (the deployed stack's workgroup)")
      .argument('<runId>', 'the run id (fleetbench start prints it)')
      .option(
        '--spec <name>',
        "the run's spec name (default: read from the run's context in the results bucket)",
      )
      .option('--json', 'print JSON'),
  ).action(async (runId: string, o: ResultsOptions) => {
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(runId))
      throw new InputError([
        {
          path: 'runId',
          message: `expected a run id (lower-case letters, digits and "-"), found "${runId}"`,
        },
      ]);
    const outputs = await stackOutputs(o);
    const config = clientConfig(o);
    let specName = o.spec;
    if (!specName) {
      const store = new S3Store(`s3://${outputs.get('ResultsBucket')}`, { clientConfig: config });
      try {
        specName = ((await store.getJson(contextKey(runId))) as RunContext).specName;
      } catch (err) {
        if (err instanceof NotFoundError)
          throw new InputError([
            {
              path: 'runId',
              message: `no run ${runId} in ${store.uriOf(contextKey(runId))} (was it planned?)`,
            },
          ]);
        throw err;
      }
    }
    const athena = new AthenaResults(
      { workGroup: outputs.get('AthenaWorkGroup'), database: outputs.get('GlueDatabase') },
      config,
    );
    const [run] = await athena.query(RUN_ROW_SQL, [specName, runId]);
    const cells = await athena.query(RUN_CELLS_SQL, [specName, runId]);
    const frontier = await athena.query(RUN_FRONTIER_SQL, [specName, runId]);
    if (o.json) {
      process.stdout.write(
        JSON.stringify({ runId, specName, run: run ?? null, cells, frontier }, null, 2) + '\n',
      );
      return;
    }
    process.stdout.write(runLine(run, runId) + '\n');
    if (cells.length === 0) process.stdout.write('(no cells rows)\n');
    else process.stdout.write('\n' + table([...SUMMARY_HEADERS], summaryRows(cells.map(headlineOf))));
    // the SLO searches' answers (docs/slo-search.md)
    if (frontier.length)
      process.stdout.write('\nSLO searches\n' + table([...FRONTIER_HEADERS], frontierRows(frontier)));
  });
}

import type { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { readSpec } from '../../core/pipeline';
import { freeResumeExecutionName, resumable } from '../../core/pipeline/resume';
import { FsStore } from '../../local/fs-store';
import { assertRunnable } from '../../local/runner';
import { S3Store } from '../../aws/s3-store';
import { addAwsOptions, clientConfig, stackOutputs, type AwsOptions } from '../aws-stack';
import { SfnExecutions } from '../../aws/sfn-executions';
import { runLocalWithSignals } from './run';
import { follow } from './start';
import { DEFAULT_RESULTS_DIR } from './query';

/**
 * `fleetbench resume <runId>`: a new execution carries on a failed run (lib/core/pipeline/resume.ts): the run's plan,
 * its data set loaded again, only the cells without a complete row, written under the same run. Checked before
 * anything starts (the Plan step checks again): a run resumed before, complete, or not torn down is refused.
 */
export function register(program: Command): void {
  addAwsOptions(
    program
      .command('resume')
      .description('carry on a failed run: run only its cells without a complete row, under the same run id')
      .argument('<runId>', 'the failed run')
      .option('--local', 'a run of the local mode (its results directory)')
      .option('--results <dir>', 'local results directory', DEFAULT_RESULTS_DIR)
      .option('--no-follow', 'AWS: print the execution ARN and return'),
  ).action(async (runId: string, o: AwsOptions & { local?: boolean; results: string; follow: boolean }) => {
    if (o.local) return resumeLocal(runId, o.results);
    return resumeOnAws(runId, o);
  });
}

async function resumeLocal(runId: string, results: string): Promise<void> {
  const store = new FsStore(results);
  await resumable(store, runId);
  const spec = await readSpec(store, runId);
  assertRunnable(spec);
  const result = await runLocalWithSignals({ spec, resultsDir: results, resume: runId });
  process.exitCode = result.status === 'SUCCEEDED' ? 0 : 1;
}

async function resumeOnAws(runId: string, o: AwsOptions & { follow: boolean }): Promise<void> {
  const outputs = await stackOutputs(o);
  const store = new S3Store(`s3://${outputs.get('ResultsBucket')}`, { clientConfig: clientConfig(o) });
  const { cells } = await resumable(store, runId);
  const executions = new SfnExecutions(clientConfig(o));
  const machine = outputs.get('StateMachineArn');
  // a resume the Plan step refused (its teardown not finished yet) keeps its execution's name: the next one is -2, ...
  const executionArn = (n: string) => `${machine.replace(':stateMachine:', ':execution:')}:${n}`;
  const name = await freeResumeExecutionName(
    runId,
    async (n) => (await executions.describe(executionArn(n))) !== undefined,
  );
  if (name.length > 80)
    throw new InputError([{ path: 'runId', message: 'too long for an execution name with "-resume"' }]);
  const arn = await executions.start(machine, name, JSON.stringify({ resume: runId }));
  const out = (s: string) => process.stdout.write(s + '\n');
  out(`started ${arn}: resuming run ${runId}, ${cells.length} cell(s) to run`);
  if (!o.follow) return;
  const info = await follow(executions, arn, out);
  if (info.status !== 'SUCCEEDED') {
    process.stderr.write(`resume of ${runId} ${info.status}${info.cause ? `: ${info.cause}` : ''}\n`);
    process.exitCode = 1;
  }
}

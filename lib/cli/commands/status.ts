/**
 * `fleetbench status <executionArn | runId> [--stack <name>] [--region <r>] [--json]`: the execution's
 * status, the state it is in (or the last one it left), its timings, when it failed, why, and once the
 * Report step wrote it, a link to the run's HTML report (presigned for 24 h, from the stack's results bucket).
 */
import type { Command } from 'commander';
import { S3Store } from '../../aws/s3-store';
import { SfnExecutions } from '../../aws/sfn-executions';
import { reportLink } from '../../core/report/data';
import { InputError } from '../../core/common/errors';
import { executionState, runIdFromExecutionName, type ExecutionInfo } from '../../core/pipeline';
import { resumeExecutionName, runOfExecution } from '../../core/pipeline/resume';
import { addAwsOptions, clientConfig, stackOutputs, type AwsOptions } from '../aws-stack';

/** Lifetime of the report link `status` prints. */
const REPORT_LINK_SECONDS = 24 * 3600;

interface StatusOptions extends AwsOptions {
  json?: boolean;
}

export function register(program: Command): void {
  addAwsOptions(
    program
      .command('status')
      .description("print a run's execution status, current or last state and timings")
      .argument('<execution>', "execution ARN, or the run id (looked up in the stack's state machine)")
      .option('--json', 'print JSON'),
  ).action(async (ref: string, o: StatusOptions) => {
    const config = clientConfig(o);
    const region = ref.startsWith('arn:') ? ref.split(':')[3] : undefined;
    const executions = new SfnExecutions(region && !o.region ? { ...config, region } : config);
    let info: ExecutionInfo | undefined;
    if (ref.startsWith('arn:')) {
      if (ref.split(':')[5] !== 'execution')
        throw new InputError([
          {
            path: 'execution',
            message: `expected an execution ARN (arn:aws:states:…:execution:…), found "${ref}"`,
          },
        ]);
      info = await executions.describe(ref);
    } else {
      const machine = (await stackOutputs(o)).get('StateMachineArn');
      info = (await latestResume(executions, machine, ref)) ?? (await executions.findByRunId(machine, ref));
    }
    if (!info)
      throw new InputError([
        {
          path: 'execution',
          message: `no execution ${ref}${ref.startsWith('arn:') ? '' : ` of the state machine of stack "${o.stack}"`}`,
        },
      ]);
    const st = executionState(await executions.latestEvents(info.executionArn));
    let runId: string | undefined;
    try {
      runId = runIdFromExecutionName(info.name);
    } catch {
      runId = undefined;
    }
    // the report link: a missing stack output or an unreadable bucket says why instead of failing the status
    let reportUrl: string | null = null;
    let reportProblem: string | null = null;
    if (runId) {
      try {
        const bucket = (await stackOutputs(o)).get('ResultsBucket');
        const store = new S3Store(`s3://${bucket}`, { clientConfig: config });
        // a resuming execution's report is its run's
        runId = await runOfExecution(store, runId);
        reportUrl = await reportLink(store, runId, REPORT_LINK_SECONDS);
      } catch (err) {
        reportProblem = (err as Error).message;
      }
    }
    const endMs = info.stopMs ?? Date.now();
    const doc = {
      executionArn: info.executionArn,
      name: info.name,
      runId: runId ?? null,
      status: info.status,
      startedAt: new Date(info.startMs).toISOString(),
      stoppedAt: info.stopMs ? new Date(info.stopMs).toISOString() : null,
      durationSeconds: Math.round((endMs - info.startMs) / 1000),
      currentState: st.current?.state ?? null,
      currentPosition: st.current?.position || null,
      currentStateSince: st.current ? new Date(st.current.sinceMs).toISOString() : null,
      lastState: st.last?.state ?? null,
      error: info.error ?? st.failure?.error ?? null,
      cause: info.cause ?? st.failure?.cause ?? null,
      reportUrl,
    };
    if (o.json) {
      process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
      return;
    }
    const utc = (iso: string) => iso.replace('T', ' ').slice(0, 19) + ' UTC';
    const lines = [
      `execution  ${doc.executionArn}`,
      `run id     ${doc.runId ?? '–'}`,
      `status     ${doc.status}`,
      `started    ${utc(doc.startedAt)}`,
      ...(doc.stoppedAt ? [`stopped    ${utc(doc.stoppedAt)}`] : []),
      `duration   ${duration(doc.durationSeconds)}${doc.stoppedAt ? '' : ' so far'}`,
    ];
    if (st.current && info.status === 'RUNNING')
      lines.push(
        `state      ${st.current.state}${st.current.position ? ` (${st.current.position})` : ''} for ${duration(Math.round((Date.now() - st.current.sinceMs) / 1000))}`,
      );
    if (doc.lastState) lines.push(`last left  ${doc.lastState}`);
    if (info.status !== 'RUNNING' && info.status !== 'SUCCEEDED' && (doc.error || doc.cause))
      lines.push(`error      ${doc.error ?? ''}${doc.cause ? `: ${doc.cause}` : ''}`);
    if (reportUrl) lines.push(`report     ${reportUrl}`, '           (link valid 24 h)');
    else if (reportProblem) lines.push(`report     not available: ${reportProblem}`);
    process.stdout.write(lines.join('\n') + '\n');
  });
}

function duration(s: number): string {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h ? `${h} h ${m} min` : m ? `${m} min ${sec} s` : `${sec} s`;
}

/** A resumed run's latest execution: the last that resumed it (`fleetbench resume`: -resume, -resume-2, ...). */
async function latestResume(
  executions: SfnExecutions,
  machine: string,
  runId: string,
): Promise<ExecutionInfo | undefined> {
  let latest: ExecutionInfo | undefined;
  for (let attempt = 1; attempt <= 50; attempt++) {
    const found = await executions.findByRunId(
      machine,
      runIdFromExecutionName(resumeExecutionName(runId, attempt)),
    );
    if (!found) break;
    latest = found;
  }
  return latest;
}

/**
 * The loader agent's command line (bundled by esbuild to loader/agent/dist/agent.js):
 *
 *   node agent.js <job.json | file:///…/job.json | s3://bucket/…/job.json>
 *        [--bundle <dir>] [--classpath <cp>] [--work-dir <dir>] [--keep-work-dir] [--progress plain|emf|cloudwatch]
 *        [--state-dir <dir>]
 *
 * Environment: FLEETBENCH_BUNDLE (the loader bundle directory, `<dir>/lib/*.jar`), FLEETBENCH_RUN_AS
 * (or --run-as: the user the JVMs run as; the agent must be root to switch),
 * FLEETBENCH_PROGRESS=cloudwatch (on AWS: progress lines plus PutMetricData, namespace Fleetbench) or
 * emf (EMF documents on stdout), JAVA_HOME, FLEETBENCH_AGENT_STATE_DIR (or --state-dir: where the agent keeps each
 * job's lock and outcome, so a job delivered twice runs once: ./job-lock.ts).
 * Exit codes: 0 all processes succeeded; 1 a process failed (named on stderr) or an internal
 * error; 2 a bad job or bad flags (nothing was started); 130/143 stopped by SIGINT/SIGTERM.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { InputError } from '../../../lib/core/common/errors';
import { openStore } from '../../../lib/open-store';
import { CloudWatchMetricsSink } from '../../../lib/aws/cloudwatch-metrics';
import { SecretsManagerSecrets } from '../../../lib/aws/secrets';
import { loadJob } from './job';
import { runJob, type JobResult } from './run-job';
import {
  STATE_DIR_ENV,
  canonicalRef,
  claimJob,
  stopEarlierJobs,
  defaultStateDir,
  ensureStateDir,
  type JobLock,
  type JobOutcome,
} from './job-lock';

const USAGE =
  'usage: agent <job.json | file:///…/job.json | s3://bucket/…/job.json> [--bundle <dir>] [--classpath <cp>] ' +
  '[--work-dir <dir>] [--keep-work-dir] [--progress plain|emf|cloudwatch] [--run-as <user>] [--state-dir <dir>]';

/** The uid and gid of a user in an /etc/passwd text; an InputError naming the field when it is not there. */
export function passwdUser(name: string, passwd: string, field = '--run-as'): { uid: number; gid: number } {
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined)
      return { uid: Number(uid), gid: Number(gid) };
  }
  throw new InputError([{ path: field, message: `no user "${name}" in /etc/passwd` }]);
}

/** The YCSB classpath of a loader bundle directory: `<dir>/lib/*` (or `<dir>/*` when it holds the jars). */
export function bundleClasspath(dir: string, field = '--bundle'): string {
  const abs = path.resolve(dir);
  const jarsIn = (d: string): boolean =>
    existsSync(d) && statSync(d).isDirectory() && readdirSync(d).some((f) => f.endsWith('.jar'));
  if (jarsIn(path.join(abs, 'lib'))) return path.join(abs, 'lib', '*');
  if (jarsIn(abs)) return path.join(abs, '*');
  throw new InputError([
    { path: field, message: `${abs} is not a loader bundle (no jars in it or in its lib/)` },
  ]);
}

/** After SIGINT/SIGTERM: JVMs get SIGTERM, SIGKILL after the job's killAfterSeconds, then the upload. */
const ABORT_UPLOAD_ALLOWANCE_MS = 60_000;

export async function agentMain(argv: string[]): Promise<number> {
  // Run Command gives a command its region as AWS_SSM_REGION_NAME, not AWS_REGION, and the SDK for
  // JavaScript does not ask the instance metadata for it
  // (https://docs.aws.amazon.com/systems-manager/latest/userguide/running-commands.html#run-command-environment-variables)
  if (!process.env.AWS_REGION && process.env.AWS_SSM_REGION_NAME)
    process.env.AWS_REGION = process.env.AWS_SSM_REGION_NAME;
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  let abortTimeoutMs = ABORT_UPLOAD_ALLOWANCE_MS;
  let lock: JobLock | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    const code = sig === 'SIGINT' ? 130 : 143;
    if (stoppedBy) {
      // a second signal: leave now (the exit hook SIGKILLs every JVM still running)
      process.stderr.write(`agent: ${sig} received again, exiting at once\n`);
      process.exit(code);
    }
    stoppedBy = sig;
    process.stderr.write(`agent: ${sig} received, stopping every YCSB process\n`);
    // an agent waiting on this job must not signal this one again (./job-lock.ts)
    lock?.markStopping();
    controller.abort();
    // should stopping and uploading hang, do not outlive the signal by more than this
    setTimeout(() => {
      process.stderr.write('agent: still not stopped after the abort timeout, exiting\n');
      process.exit(code);
    }, abortTimeoutMs).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          bundle: { type: 'string' },
          classpath: { type: 'string' },
          'work-dir': { type: 'string' },
          'keep-work-dir': { type: 'boolean' },
          progress: { type: 'string' },
          'run-as': { type: 'string' },
          'state-dir': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (err) {
      throw new InputError(`${(err as Error).message}\n${USAGE}`);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length !== 1)
      throw new InputError([{ path: 'job', message: `exactly one job expected\n${USAGE}` }]);
    const progress = values.progress ?? process.env.FLEETBENCH_PROGRESS ?? 'plain';
    if (progress !== 'plain' && progress !== 'emf' && progress !== 'cloudwatch') {
      throw new InputError([
        { path: '--progress', message: `must be plain, emf or cloudwatch, got "${progress}"` },
      ]);
    }
    // Validate the job before looking for Java or the bundle: a bad job fails at once.
    const { job } = await loadJob(positionals[0], (uri) => openStore(uri));
    abortTimeoutMs = job.killAfterSeconds * 1000 + ABORT_UPLOAD_ALLOWANCE_MS;
    let classpath = values.classpath;
    if (!classpath) {
      const bundle = values.bundle ?? process.env.FLEETBENCH_BUNDLE;
      if (!bundle) {
        throw new InputError([
          {
            path: '--bundle',
            message: 'the loader bundle is needed: pass --bundle <dir> or set FLEETBENCH_BUNDLE',
          },
        ]);
      }
      classpath = bundleClasspath(bundle, values.bundle ? '--bundle' : 'FLEETBENCH_BUNDLE');
    }
    const runAsName = values['run-as'] ?? process.env.FLEETBENCH_RUN_AS;
    const runAs = runAsName
      ? passwdUser(
          runAsName,
          readFileSync('/etc/passwd', 'utf8'),
          values['run-as'] ? '--run-as' : 'FLEETBENCH_RUN_AS',
        )
      : undefined;
    const stateDir = ensureStateDir(
      values['state-dir'] ?? process.env[STATE_DIR_ENV] ?? defaultStateDir(),
      values['state-dir'] ? '--state-dir' : process.env[STATE_DIR_ENV] ? STATE_DIR_ENV : 'state directory',
    );
    // one workload per job on this loader, however often the job is delivered (./job-lock.ts)
    const claim = await claimJob({
      stateDir,
      job,
      ref: canonicalRef(positionals[0]),
      log: (l) => process.stderr.write(l + '\n'),
      signal: controller.signal,
    });
    if ('stopped' in claim) return stoppedBy === 'SIGINT' ? 130 : 143;
    if ('outcome' in claim) return reportOutcome(claim.outcome);
    lock = claim.run;
    let outcome: Omit<JobOutcome, 'pid' | 'finishedMs'> | undefined;
    try {
      // an earlier job of the run still running on this loader would load the target beside this one
      await stopEarlierJobs({
        stateDir,
        job,
        ref: canonicalRef(positionals[0]),
        log: (l) => process.stderr.write(l + '\n'),
        stopWaitMs: job.killAfterSeconds * 1000 + ABORT_UPLOAD_ALLOWANCE_MS,
        signal: controller.signal,
      });
      if (controller.signal.aborted) {
        outcome = {
          exitCode: stoppedBy === 'SIGINT' ? 130 : 143,
          ok: null,
          outputPrefix: job.outputPrefix,
          failed: [],
          error: `stopped by ${stoppedBy ?? 'a signal'} before its YCSB processes started`,
        };
        return reportOutcome(outcome);
      }
      const result = await runJob(job, {
        ...(runAs ? { runAs } : {}),
        classpath,
        openStore: (uri) => openStore(uri),
        fetchSecret: (arn) => new SecretsManagerSecrets(secretsClientConfig()).secretString(arn),
        workDir: values['work-dir'],
        keepWorkDir: values['keep-work-dir'],
        progressFormat: progress === 'emf' ? 'emf' : 'plain',
        // on a loader: plain lines in the command output, and the figures as CloudWatch metrics
        ...(progress === 'cloudwatch' ? { metrics: new CloudWatchMetricsSink() } : {}),
        signal: controller.signal,
        onSpawn: (proc, pid) => {
          process.stderr.write(`agent: proc-${proc} pid ${pid}\n`);
          claim.run.addChild(pid);
        },
      });
      outcome = outcomeOf(result, stoppedBy);
    } catch (err) {
      outcome = {
        exitCode: err instanceof InputError ? 2 : 1,
        ok: null,
        outputPrefix: job.outputPrefix,
        failed: [],
        error: (err as Error)?.message ?? String(err),
      };
      throw err;
    } finally {
      if (outcome) claim.run.finish(outcome);
    }
    return reportOutcome(outcome);
  } catch (err) {
    if (err instanceof InputError) {
      process.stderr.write(`agent: invalid input:\n${err.message}\n`);
      return 2;
    }
    process.stderr.write(`agent: error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The job's outcome from its result: 0 all processes succeeded, 1 one failed, 130/143 stopped by a signal. */
function outcomeOf(
  result: JobResult,
  stoppedBy: NodeJS.Signals | undefined,
): Omit<JobOutcome, 'pid' | 'finishedMs'> {
  const exitCode = stoppedBy ? (stoppedBy === 'SIGINT' ? 130 : 143) : result.ok ? 0 : 1;
  return { exitCode, ok: result.ok, outputPrefix: result.outputPrefix, failed: result.failed };
}

/**
 * Prints a job's outcome (the result line on stdout, the failed processes or the error on stderr) and gives its
 * exit code: the same whether this agent ran the job or another agent did (./job-lock.ts).
 */
function reportOutcome(o: Omit<JobOutcome, 'pid' | 'finishedMs'>): number {
  if (o.ok !== null) {
    process.stdout.write(JSON.stringify({ ok: o.ok, outputPrefix: o.outputPrefix, failed: o.failed }) + '\n');
  }
  if (o.failed.length) {
    process.stderr.write(
      `agent: failed processes: ${o.failed.map((f) => `proc-${f.process} (${f.reason})`).join('; ')}\n`,
    );
  } else if (o.error !== undefined && o.ok === null) {
    process.stderr.write(`agent: the job ended in an error: ${o.error}\n`);
  }
  return o.exitCode;
}

/** FLEETBENCH_SECRETS_ENDPOINT points the Secrets Manager client elsewhere (tests: moto). */
function secretsClientConfig(): { endpoint?: string } {
  const endpoint = process.env.FLEETBENCH_SECRETS_ENDPOINT;
  return endpoint ? { endpoint } : {};
}

if (require.main === module) {
  agentMain(process.argv.slice(2)).then((code) => process.exit(code));
}

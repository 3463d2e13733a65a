import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { InputError, type Issue } from '../core/common/errors';
import { parseSpecText, validateSpec, type RunSpec } from '../core/spec';

export interface ScheduledSpec {
  file: string;
  /**
   * The spec as the file wrote it: what the schedule's input carries. Plan validates it again and fills in
   * the defaults there, with the stack's region for a spec that names none (lib/core/pipeline/plan.ts
   * stackRegion); a defaulted copy would carry `region: "us-east-1"` the user never wrote, refused on
   * every stack outside us-east-1.
   */
  raw: unknown;
  /** The validated spec (defaults filled in): its name, schedule and description name the schedule. */
  spec: RunSpec;
}

/**
 * Reads every `*.json` run spec in `dir` that has a `schedule`; every spec is validated (an
 * InputError names the file and field). Specs without `schedule` are refused: a file in the
 * schedules directory that would never run is a mistake.
 */
export function readScheduledSpecs(dir: string): ScheduledSpec[] {
  const issues: Issue[] = [];
  const out: ScheduledSpec[] = [];
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const file = path.join(dir, name);
    try {
      const raw = parseSpecText(readFileSync(file, 'utf8'), file);
      const { spec } = validateSpec(raw);
      if (!spec.schedule)
        issues.push({ path: `${file}: schedule`, message: 'missing: a scheduled spec needs "schedule"' });
      else out.push({ file, raw, spec });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      issues.push(...err.issues.map((i) => ({ path: `${file}: ${i.path}`, message: i.message })));
    }
  }
  const names = new Map<string, string>();
  for (const s of out) {
    const other = names.get(s.spec.name);
    if (other)
      issues.push({ path: `${s.file}: name`, message: `"${s.spec.name}" is also the name of ${other}` });
    names.set(s.spec.name, s.file);
  }
  if (issues.length) throw new InputError(issues);
  return out;
}

export interface SchedulesProps {
  readonly stateMachine: sfn.IStateMachine;
  readonly specs: ScheduledSpec[];
}

/**
 * A schedule's state-machine input, `{spec, scheduleName}`: `spec` is the file's own text (validated here at
 * synth, defaulted by Plan), so a spec without `region` runs in the stack's region.
 */
export function scheduleInput(s: ScheduledSpec): string {
  return JSON.stringify({ spec: s.raw, scheduleName: s.spec.name });
}

/**
 * One EventBridge Scheduler schedule per scheduled spec, starting the state machine directly with
 * scheduleInput's `{spec, scheduleName}`; Plan refuses the run while the schedule's previous run is still going.
 */
export class Schedules extends Construct {
  readonly schedules: scheduler.CfnSchedule[] = [];
  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    if (!props.specs.length) return;
    const role = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: 'fleetbench schedules: start the benchmark state machine',
    });
    props.stateMachine.grantStartExecution(role);
    for (const scheduled of props.specs) {
      const { spec } = scheduled;
      const input = scheduleInput(scheduled);
      if (input.length > 8192) {
        throw new InputError([
          {
            path: `schedule ${spec.name}`,
            message: `the spec is ${input.length} bytes; schedules carry at most 8192`,
          },
        ]);
      }
      this.schedules.push(
        new scheduler.CfnSchedule(this, `Schedule-${spec.name}`, {
          name: `fleetbench-${spec.name}`.slice(0, 64),
          description: spec.description?.slice(0, 512) ?? `fleetbench run of ${spec.name}`,
          scheduleExpression: spec.schedule!.expression,
          scheduleExpressionTimezone: spec.schedule!.timezone,
          flexibleTimeWindow: { mode: 'OFF' },
          state: 'ENABLED',
          target: {
            arn: props.stateMachine.stateMachineArn,
            roleArn: role.roleArn,
            input,
            retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 3600 },
          },
        }),
      );
    }
  }
}

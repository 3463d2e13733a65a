/**
 * Executions of the pipeline's state machine for the CLI: StartExecution, DescribeExecution,
 * GetExecutionHistory (new events since the last one seen, newest page first) and finding an
 * execution by run id.
 */
import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  type HistoryEvent,
  type SFNClientConfig,
} from '@aws-sdk/client-sfn';
import { InputError } from '../core/common/errors';
import { runIdFromExecutionName } from '../core/pipeline/context';
import type { ExecutionEvent, ExecutionInfo } from '../core/pipeline/follow';
import { errorName, translate } from './errors';

/** `arn:…:stateMachine:<machine>` + name → `arn:…:execution:<machine>:<name>`. */
export function executionArnOf(stateMachineArn: string, name: string): string {
  const parts = stateMachineArn.split(':');
  if (parts.length < 7 || parts[5] !== 'stateMachine')
    throw new Error(`not a state machine ARN: ${stateMachineArn}`);
  return [...parts.slice(0, 5), 'execution', parts[6], name].join(':');
}

/** The plain event of one SDK history event (state name, input/output, error/cause). */
export function toEvent(h: HistoryEvent): ExecutionEvent {
  const e: ExecutionEvent = {
    id: h.id ?? 0,
    type: h.type ?? 'Unknown',
    timestampMs: h.timestamp?.getTime() ?? 0,
  };
  if (h.stateEnteredEventDetails) {
    e.state = h.stateEnteredEventDetails.name;
    e.data = h.stateEnteredEventDetails.input;
  }
  if (h.stateExitedEventDetails) {
    e.state = h.stateExitedEventDetails.name;
    e.data = h.stateExitedEventDetails.output;
  }
  const failure =
    h.executionFailedEventDetails ??
    h.executionAbortedEventDetails ??
    h.executionTimedOutEventDetails ??
    h.taskFailedEventDetails ??
    h.taskTimedOutEventDetails ??
    h.lambdaFunctionFailedEventDetails ??
    h.lambdaFunctionTimedOutEventDetails;
  if (failure) {
    if (failure.error) e.error = failure.error;
    if (failure.cause) e.cause = failure.cause;
  }
  return e;
}

export class SfnExecutions {
  readonly client: SFNClient;
  constructor(clientOrConfig: SFNClient | SFNClientConfig = {}) {
    this.client = clientOrConfig instanceof SFNClient ? clientOrConfig : new SFNClient(clientOrConfig);
  }

  async start(stateMachineArn: string, name: string, input: string): Promise<string> {
    try {
      const out = await this.client.send(new StartExecutionCommand({ stateMachineArn, name, input }));
      return out.executionArn!;
    } catch (err) {
      if (errorName(err) === 'ExecutionAlreadyExists')
        throw new InputError([
          { path: '--name', message: `an execution named "${name}" already exists; choose another name` },
        ]);
      throw translate('StepFunctions', 'StartExecution', err);
    }
  }

  /** The execution, or undefined when there is none with that ARN. */
  async describe(executionArn: string): Promise<ExecutionInfo | undefined> {
    try {
      const d = await this.client.send(new DescribeExecutionCommand({ executionArn }));
      return {
        executionArn: d.executionArn ?? executionArn,
        name: d.name ?? executionArn.split(':').pop()!,
        stateMachineArn: d.stateMachineArn ?? '',
        status: d.status ?? 'UNKNOWN',
        startMs: d.startDate?.getTime() ?? 0,
        ...(d.stopDate ? { stopMs: d.stopDate.getTime() } : {}),
        ...(d.error ? { error: d.error } : {}),
        ...(d.cause ? { cause: d.cause } : {}),
      };
    } catch (err) {
      if (err instanceof ExecutionDoesNotExist || errorName(err) === 'ExecutionDoesNotExist')
        return undefined;
      throw translate('StepFunctions', 'DescribeExecution', err);
    }
  }

  /**
   * Events with an id above `afterId`, oldest first. Pages are read newest first (reverseOrder) and
   * reading stops at the first page that reaches an event already seen, so a long run's history is
   * not read again on every poll.
   */
  async eventsSince(executionArn: string, afterId: number, pageSize = 100): Promise<ExecutionEvent[]> {
    const found = new Map<number, ExecutionEvent>();
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new GetExecutionHistoryCommand({
            executionArn,
            reverseOrder: true,
            maxResults: pageSize,
            nextToken: token,
            includeExecutionData: true,
          }),
        );
        let reachedSeen = false;
        for (const h of page.events ?? []) {
          const e = toEvent(h);
          if (e.id > afterId) found.set(e.id, e);
          else reachedSeen = true;
        }
        token = reachedSeen ? undefined : page.nextToken;
      } while (token);
    } catch (err) {
      throw translate('StepFunctions', 'GetExecutionHistory', err);
    }
    return [...found.values()].sort((a, b) => a.id - b.id);
  }

  /** The newest `count` events (for status), oldest first. */
  async latestEvents(executionArn: string, count = 50): Promise<ExecutionEvent[]> {
    try {
      const page = await this.client.send(
        new GetExecutionHistoryCommand({
          executionArn,
          reverseOrder: true,
          maxResults: count,
          includeExecutionData: true,
        }),
      );
      // an emulator may ignore reverseOrder/maxResults: keep the newest `count` either way
      return (page.events ?? [])
        .map(toEvent)
        .sort((a, b) => a.id - b.id)
        .slice(-count);
    } catch (err) {
      throw translate('StepFunctions', 'GetExecutionHistory', err);
    }
  }

  /**
   * The execution of a run id: the execution named after it (what `fleetbench start` names them),
   * else the newest execution whose name gives that run id.
   */
  async findByRunId(stateMachineArn: string, runId: string): Promise<ExecutionInfo | undefined> {
    const direct = await this.describe(executionArnOf(stateMachineArn, runId));
    if (direct) return direct;
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(new ListExecutionsCommand({ stateMachineArn, nextToken: token }));
        for (const e of page.executions ?? []) {
          let id: string | undefined;
          try {
            id = runIdFromExecutionName(e.name ?? '');
          } catch {
            id = undefined;
          }
          if (id === runId) return this.describe(e.executionArn!);
        }
        token = page.nextToken;
      } while (token);
    } catch (err) {
      throw translate('StepFunctions', 'ListExecutions', err);
    }
    return undefined;
  }
}

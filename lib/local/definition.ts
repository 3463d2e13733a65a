/**
 * The deployed state machine's definition, taken from the synthesized CDK app: the same
 * FleetbenchStack `cdk deploy` deploys, synthesized in-process (asset bundling skipped: the local
 * mode calls the step code directly), its DefinitionString resolved with stand-in ARNs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { FleetbenchStack } from '../../stacks/fleetbench-stack';

export interface AslState {
  Type: string;
  Resource?: string;
  Next?: string;
  End?: boolean;
  Catch?: { ErrorEquals: string[]; Next: string }[];
  Branches?: AslDefinition[];
  [k: string]: unknown;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  TimeoutSeconds?: number;
  [k: string]: unknown;
}

/** Replaces intrinsic functions in a DefinitionString with placeholder strings. */
function resolve(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  if (v['Fn::Join']) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(resolve).join(sep);
  }
  if (v['Fn::GetAtt']) {
    const [logical] = v['Fn::GetAtt'] as [string, string];
    return `arn:aws:lambda:local:000000000000:function:${logical}`;
  }
  if (v.Ref) return `local-${String(v.Ref)}`;
  throw new Error(
    `unsupported intrinsic in the state machine definition: ${JSON.stringify(value).slice(0, 200)}`,
  );
}

let cached: AslDefinition | undefined;

/** Synthesizes the app's stack and returns its benchmark state machine definition. */
export function localDefinition(): AslDefinition {
  if (cached) return cached;
  const outdir = mkdtempSync(path.join(tmpdir(), 'fleetbench-synth-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new FleetbenchStack(app, 'FleetbenchLocal', {
      env: { account: '000000000000', region: 'us-east-1' },
    });
    const assembly = app.synth();
    const template = assembly.getStackByName(stack.stackName).template as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const machines = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::StepFunctions::StateMachine',
    );
    if (machines.length !== 1)
      throw new Error(`expected one state machine in the template, found ${machines.length}`);
    cached = JSON.parse(resolve(machines[0]!.Properties.DefinitionString)) as AslDefinition;
    return cached;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every Task state of a definition (Parallel branches included). */
export function taskStates(def: AslDefinition): string[] {
  const out: string[] = [];
  for (const [name, s] of Object.entries(def.States)) {
    if (s.Type === 'Task') out.push(name);
    for (const b of s.Branches ?? []) out.push(...taskStates(b));
  }
  return out;
}

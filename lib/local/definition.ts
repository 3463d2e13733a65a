/**
 * The deployed state machine's definition, taken from the synthesized CDK app: the same
 * FleetbenchStack `cdk deploy` deploys, synthesized in-process (asset bundling skipped: the local
 * mode calls the step code directly), its DefinitionString resolved with stand-in ARNs.
 *
 * Synthesizing takes 10-20 s on 2 cores, so the result is kept in `.tmp/definition-cache/<hash>.json`, the hash
 * being over every source file the stack is built from (DEFINITION_INPUTS) and the lock file: a change to any of
 * them synthesizes again.
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../build/maven';

/** What the synthesized stack depends on (directories are read recursively, .ts files only). */
export const DEFINITION_INPUTS = [
  'stacks',
  'lib/constructs',
  'lib/core',
  'lambdas',
  'lib/local/definition.ts',
  'package-lock.json',
];

export interface AslState {
  Type: string;
  Resource?: string;
  Next?: string;
  End?: boolean;
  Catch?: { ErrorEquals: string[]; Next: string }[];
  Branches?: AslDefinition[];
  /** A Map's iteration (ItemProcessor; Iterator in older definitions). */
  ItemProcessor?: AslDefinition;
  Iterator?: AslDefinition;
  [k: string]: unknown;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  TimeoutSeconds?: number;
  [k: string]: unknown;
}

/** Every state of a definition by name, those of Parallel branches and Map iterations included. */
export function allStates(def: AslDefinition): [string, AslState][] {
  return Object.entries(def.States).flatMap(([name, st]): [string, AslState][] => [
    [name, st],
    ...[...(st.Branches ?? []), st.ItemProcessor ?? st.Iterator].flatMap((d) => (d ? allStates(d) : [])),
  ]);
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

function inputFiles(root: string, rel: string): string[] {
  const abs = path.join(root, rel);
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return [rel];
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries.flatMap((e) => {
    const child = path.join(rel, e.name);
    if (e.isDirectory()) return inputFiles(root, child);
    return e.name.endsWith('.ts') ? [child] : [];
  });
}

/** SHA-256 over the paths and contents of the definition's source files. */
export function definitionSourceHash(root: string = repoRoot()): string {
  const h = createHash('sha256');
  const files = DEFINITION_INPUTS.flatMap((rel) => inputFiles(root, rel)).sort();
  for (const f of files) {
    h.update(f.split(path.sep).join('/'))
      .update('\0')
      .update(readFileSync(path.join(root, f)))
      .update('\0');
  }
  return h.digest('hex');
}

/** The benchmark state machine definition: from the cache when the sources are unchanged, else synthesized. */
export function localDefinition(options: { root?: string } = {}): AslDefinition {
  if (cached && !options.root) return cached;
  const root = options.root ?? repoRoot();
  const file = path.join(root, '.tmp', 'definition-cache', `${definitionSourceHash(root)}.json`);
  let def: AslDefinition;
  try {
    def = JSON.parse(readFileSync(file, 'utf8')) as AslDefinition;
  } catch {
    def = synthesize();
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(def));
      renameSync(tmp, file); // atomic: a parallel reader sees the whole file or none
    } catch {
      // a read-only checkout still works, it just synthesizes every time
    }
  }
  if (!options.root) cached = def;
  return def;
}

function synthesize(): AslDefinition {
  // Loaded here, not at the top: aws-cdk-lib takes seconds to load, and a cache hit needs none of it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { App } = require('aws-cdk-lib') as typeof import('aws-cdk-lib');
  const { FleetbenchStack } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('../../stacks/fleetbench-stack') as typeof import('../../stacks/fleetbench-stack');
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
    return JSON.parse(resolve(machines[0]!.Properties.DefinitionString)) as AslDefinition;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every Task state of a definition (Parallel branches and Map iterations included). */
export function taskStates(def: AslDefinition): string[] {
  return allStates(def)
    .filter(([, s]) => s.Type === 'Task')
    .map(([name]) => name);
}

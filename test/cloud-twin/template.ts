/**
 * The cloud assembly `cdk synth` writes, read the way CloudFormation and Lambda would: the stack's
 * template, each function's bundled asset directory, handler, environment and role, each role's
 * policies, and a resolver that turns Refs/GetAtts into the physical ids of the resources the twin
 * created in their place.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, ContextProvider, Stack } from 'aws-cdk-lib';
import { FleetbenchStack } from '../../stacks/fleetbench-stack';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
}
export type Template = { Resources: Record<string, CfnResource> };

/** The prefix list id the twin's synth answers the lookup of a service's list with (network.ts checks rules against it). */
export const twinPrefixListId = (service: string) => `pl-twin${service}`;

export interface PolicyDocument {
  Version?: string;
  Statement: Record<string, unknown>[];
}

export interface TwinFunction {
  logicalId: string;
  /** The directory of the bundled asset (holds index.js). */
  assetDir: string;
  /** `index.handler` */
  handler: string;
  roleLogicalId: string;
  /** The template's Environment.Variables, unresolved. */
  environment: Record<string, unknown>;
}

export interface Assembly {
  dir: string;
  stackName: string;
  template: Template;
  functions: TwinFunction[];
  /** Asset directory or file of a `Code.S3Key` / asset hash. */
  assetPath(hash: string): string;
}

/** Synthesizes the FleetbenchStack with asset bundling (esbuild, no Docker), as `cdk synth` does. */
export function synthesize(
  outdir: string,
  loader: { agentFile: string; bundleDir: string },
  stackName = 'FleetbenchTwin',
): Assembly {
  const app = new App({ outdir, context: prefixListContext(['s3', 'dynamodb']) });
  const stack = new FleetbenchStack(app, stackName, {
    env: { account: ACCOUNT, region: REGION },
    loaderAgentFile: loader.agentFile,
    loaderBundleDir: loader.bundleDir,
  });
  const asm = app.synth();
  // every prefix list lookup answered as cdk.context.json would (a placeholder id would match no rule of
  // ./network.ts); the availability zones stay placeholders (the twin places subnets itself)
  const missing = (asm.manifest.missing ?? []).filter((m) => m.provider !== 'availability-zones');
  if (missing.length) throw new Error(`twin synth: context lookups not answered: ${JSON.stringify(missing)}`);
  const artifact = asm.getStackByName(stack.stackName);
  const template = artifact.template as Template;
  const assets = JSON.parse(readFileSync(path.join(outdir, `${stack.stackName}.assets.json`), 'utf8')) as {
    files: Record<string, { source: { path: string } }>;
  };
  const assetPath = (hash: string): string => {
    const h = hash.replace(/\.zip$/, '');
    const f = assets.files[h];
    if (!f) throw new Error(`asset ${h} is not in the cloud assembly`);
    return path.join(outdir, f.source.path);
  };
  const functions = Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([logicalId, r]) => {
      const p = r.Properties ?? {};
      const code = p.Code as { S3Key?: unknown; ZipFile?: unknown };
      if (typeof code.S3Key !== 'string') throw new Error(`${logicalId}: Code is not an S3 asset`);
      const role = (p.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      return {
        logicalId,
        assetDir: assetPath(code.S3Key),
        handler: p.Handler as string,
        roleLogicalId: role,
        environment: ((p.Environment as { Variables?: Record<string, unknown> })?.Variables ?? {}) as Record<
          string,
          unknown
        >,
      };
    });
  return { dir: outdir, stackName: stack.stackName, template, functions, assetPath };
}

/**
 * What `cdk synth` caches in cdk.context.json for the lookups of services' prefix lists
 * (ec2.PrefixList.fromLookup by name): the twin's ids, which ./network.ts knows as those services'.
 */
function prefixListContext(services: string[]): Record<string, unknown> {
  const scope = new Stack(new App(), 'Keys', { env: { account: ACCOUNT, region: REGION } });
  return Object.fromEntries(
    services.map((service) => [
      ContextProvider.getKey(scope, {
        provider: 'cc-api-provider',
        props: {
          typeName: 'AWS::EC2::PrefixList',
          propertyMatch: { PrefixListName: `com.amazonaws.${REGION}.${service}` },
          propertiesToReturn: ['PrefixListId'],
          expectedMatchCount: 'exactly-one',
        },
      }).key,
      [{ PrefixListId: twinPrefixListId(service) }],
    ]),
  );
}

/** Resources of a type, as [logicalId, resource]. */
export function resourcesOfType(t: Template, type: string): [string, CfnResource][] {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type);
}

/** The physical side of a template resource: what Ref and each GetAtt return. */
export interface Physical {
  ref: string;
  attrs?: Record<string, string>;
}

/** Resolves CloudFormation intrinsics against the physical resources (unknown ones fail, naming them). */
export class Resolver {
  constructor(
    private readonly physical: Map<string, Physical>,
    private readonly pseudo: Record<string, string> = {
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': 'FleetbenchTwin',
      'AWS::StackId': `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/FleetbenchTwin/00000000-0000-4000-8000-000000000000`,
    },
  ) {}

  resolve(v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => this.resolve(x));
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const k = keys[0]!;
      const arg = o[k];
      if (k === 'Ref') return this.ref(arg as string);
      if (k === 'Fn::GetAtt') {
        const [id, attr] = arg as [string, string];
        const p = this.physical.get(id);
        const val = p?.attrs?.[attr];
        if (val === undefined) throw new Error(`the twin has no ${id}.${attr} (Fn::GetAtt)`);
        return val;
      }
      if (k === 'Fn::Join') {
        const [sep, parts] = arg as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).join(sep);
      }
      if (k === 'Fn::GetAZs') return ['a', 'b', 'c'].map((z) => `${REGION}${z}`);
      if (k === 'Fn::Select') {
        const [i, list] = arg as [number, unknown];
        return (this.resolve(list) as unknown[])[Number(i)];
      }
      if (k === 'Fn::Split') {
        const [sep, s] = arg as [string, unknown];
        return String(this.resolve(s)).split(sep);
      }
      if (k === 'Fn::Sub') {
        const [s, vars] = (typeof arg === 'string' ? [arg, {}] : arg) as [string, Record<string, unknown>];
        return s.replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
          if (name in vars) return String(this.resolve(vars[name]));
          if (name.includes('.')) {
            const [id, attr] = name.split('.', 2) as [string, string];
            return String(this.resolve({ 'Fn::GetAtt': [id, attr] }));
          }
          return this.ref(name);
        });
      }
    }
    return Object.fromEntries(Object.entries(o).map(([kk, vv]) => [kk, this.resolve(vv)]));
  }

  resolveString(v: unknown): string {
    const r = this.resolve(v);
    if (typeof r !== 'string') throw new Error(`expected a string, resolved ${JSON.stringify(r)}`);
    return r;
  }

  private ref(id: string): string {
    if (id in this.pseudo) return this.pseudo[id]!;
    const p = this.physical.get(id);
    if (!p) throw new Error(`the twin has no physical resource for Ref ${id}`);
    return p.ref;
  }
}

/** Policies attached to a role (AWS::IAM::Policy with the role in Roles, and inline Policies). */
export function rolePolicies(t: Template, roleLogicalId: string): { name: string; doc: unknown }[] {
  const out: { name: string; doc: unknown }[] = [];
  // inline policies, and the managed policies CDK attaches when a role's statements overflow the inline limit
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'])
    for (const [id, r] of resourcesOfType(t, type)) {
      const roles = (r.Properties?.Roles ?? []) as { Ref?: string }[];
      if (roles.some((x) => x.Ref === roleLogicalId))
        out.push({ name: id, doc: r.Properties!.PolicyDocument });
    }
  const role = t.Resources[roleLogicalId];
  for (const p of (role?.Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[])
    out.push({ name: p.PolicyName, doc: p.PolicyDocument });
  return out;
}

/** The role a launch template's instances get (LaunchTemplateData.IamInstanceProfile → profile → role). */
export function launchTemplateRole(t: Template, ltLogicalId: string): string | undefined {
  const data = t.Resources[ltLogicalId]?.Properties?.LaunchTemplateData as
    { IamInstanceProfile?: { Arn?: { 'Fn::GetAtt'?: [string, string] } } } | undefined;
  const profileId = data?.IamInstanceProfile?.Arn?.['Fn::GetAtt']?.[0];
  if (!profileId) return undefined;
  const roles = (t.Resources[profileId]?.Properties?.Roles ?? []) as { Ref?: string }[];
  return roles[0]?.Ref;
}

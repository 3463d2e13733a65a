/**
 * `cdk synth` prints no deprecation warnings: the whole stack synthesized with JSII_DEPRECATED=fail, which
 * makes every deprecated aws-cdk-lib API (e.g. CfnResource#addDependency) throw instead of printing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { FleetbenchStack } from '../../stacks/fleetbench-stack';

jest.setTimeout(120_000);

it('synthesizes the stack without any deprecated CDK API', () => {
  const before = process.env.JSII_DEPRECATED;
  const outdir = mkdtempSync(path.join(tmpdir(), 'fb-cdk-deprecated-'));
  process.env.JSII_DEPRECATED = 'fail';
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    new FleetbenchStack(app, 'Fleetbench', { env: { account: '000000000000', region: 'us-east-1' } });
    expect(() => app.synth()).not.toThrow();
  } finally {
    if (before === undefined) delete process.env.JSII_DEPRECATED;
    else process.env.JSII_DEPRECATED = before;
    rmSync(outdir, { recursive: true, force: true });
  }
});

it('synthesizes without any warning annotation, with an account and without one (no credentials)', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'fb-cdk-warnings-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const agnostic = new FleetbenchStack(app, 'Agnostic');
    const pinned = new FleetbenchStack(app, 'Pinned', {
      env: { account: '000000000000', region: 'us-east-1' },
    });
    for (const stack of [agnostic, pinned])
      expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
    // what the environment-agnostic stack says instead, as information
    expect(
      Annotations.fromStack(agnostic).findInfo('*', Match.stringLikeRegexp('environment-agnostic')),
    ).toHaveLength(1);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

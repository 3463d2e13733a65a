/**
 * `cdk synth` prints no deprecation warnings: the whole stack synthesized with JSII_DEPRECATED=fail, which
 * makes every deprecated aws-cdk-lib API (e.g. CfnResource#addDependency) throw instead of printing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
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

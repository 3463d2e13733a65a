/**
 * One build (defect 5): a stack to be deployed never gets placeholder loader assets. LoaderFleet
 * refuses missing assets naming the command to run; the build behind `cdk synth` (bin/app.ts →
 * buildDeployArtifacts) builds the agent and stops with what to install when Maven cannot run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { LoaderFleet } from '../../../lib/constructs/loader-fleet';
import { buildDeployArtifacts } from '../../../lib/build/deploy-build';
import { LoaderBuildError } from '../../../lib/build/maven';

jest.setTimeout(60_000);

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-one-build-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fleetIn = (app: App) => {
  const stack = new Stack(app, 'S', { env: { account: '123456789012', region: 'us-east-1' } });
  return new LoaderFleet(stack, 'Loaders', {
    resultsBucket: new s3.Bucket(stack, 'B'),
    bundleDir: path.join(dir, 'no-bundle'),
    agentFile: path.join(dir, 'no-agent.js'),
  });
};

it('a deployable synth without the loader bundle and agent fails, naming both commands', () => {
  expect(() => fleetIn(new App())).toThrow(
    `loader bundle ${path.join(dir, 'no-bundle')} not found: run \`npm run build:loader\`; ` +
      `loader agent ${path.join(dir, 'no-agent.js')} not found: run \`npm run build:agent\``,
  );
});

it('a synth with bundling skipped (never deployed: local definition, idle cost) does not need them', () => {
  expect(() => fleetIn(new App({ context: { 'aws:cdk:bundling-stacks': [] } }))).not.toThrow();
});

it('the synth build stops with what to install when Maven cannot run (nothing half-built is used)', async () => {
  mkdirSync(path.join(dir, 'loader'));
  writeFileSync(path.join(dir, 'loader', 'pom.xml'), '<project/>');
  const err = await buildDeployArtifacts(() => {}, {
    root: dir,
    mvn: path.join(dir, 'no-such-mvn'),
    agentFile: path.join(dir, 'agent.js'),
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LoaderBuildError);
  expect((err as Error).message).toContain(
    `'${path.join(dir, 'no-such-mvn')}' not found on PATH. Install Maven`,
  );
  expect((err as Error).message).toContain('run `npm run build:loader`');
  expect(existsSync(path.join(dir, 'agent.js'))).toBe(false);
});

it('the agent is bundled on every synth (esbuild, deterministic output)', async () => {
  // a fresh loader tree is "never built": point the Java side at a stamped, complete stand-in
  const root = path.join(dir, 'repo');
  const lib = path.join(root, 'loader', 'ycsb-binding', 'target', 'bundle', 'lib');
  mkdirSync(lib, { recursive: true });
  writeFileSync(path.join(lib, 'fleetbench-ycsb-binding-0.1.0.jar'), '');
  writeFileSync(path.join(root, 'loader', 'ycsb-binding', 'target', 'fleetbench-loader-bundle.tar.gz'), '');
  mkdirSync(path.join(root, 'loader', 'dynamodb-local', 'target', 'lib'), { recursive: true });
  writeFileSync(path.join(root, 'loader', 'dynamodb-local', 'target', 'lib', 'DynamoDBLocal-2.6.0.jar'), '');
  mkdirSync(path.join(root, 'loader', 'dynamodb-local', 'target', 'native'), { recursive: true });
  writeFileSync(
    path.join(root, 'loader', 'dynamodb-local', 'target', 'native', 'libsqlite4java-linux-amd64.so'),
    '',
  );
  mkdirSync(path.join(root, 'loader', 'target'), { recursive: true });
  writeFileSync(path.join(root, 'loader', 'target', '.fleetbench-built'), 'stamp');
  const a = await buildDeployArtifacts(() => {}, {
    root,
    mvn: '/no/mvn',
    agentFile: path.join(dir, 'a1.js'),
  });
  const b = await buildDeployArtifacts(() => {}, {
    root,
    mvn: '/no/mvn',
    agentFile: path.join(dir, 'a2.js'),
  });
  expect(a.bundleDir).toBe(path.dirname(lib));
  expect(readFileSync(a.agentFile, 'utf8')).toBe(readFileSync(b.agentFile, 'utf8'));
  expect(readFileSync(a.agentFile, 'utf8')).toContain('FLEETBENCH_BUNDLE');
});

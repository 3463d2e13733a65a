/**
 * The AWS ClusterProbe's SSM side against moto server: the probe sends the stack's probe document to
 * the run's first online loader with the action and values as parameters and reads the invocation back.
 * Moto records commands but executes no scripts, so the nodes "do not answer" here; the document's
 * script itself is run under bash in test/unit/cluster/cluster.test.ts. (moto does not implement
 * DescribeInstanceInformation: online() is the one stand-in, as in aws-pipeline-teardown.test.ts.)
 */
import { CreateLaunchTemplateCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ListCommandsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { Ec2FleetAdmin } from '../../lib/aws/ec2-fleet';
import { SsmClusterProbe } from '../../lib/aws/ssm-cluster-probe';
import { SsmCommandRunner } from '../../lib/aws/ssm-commands';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(60_000);

const PROBE_DOCUMENT = 'fleetbench-probe';

let moto: MotoServer;
let fleet: Ec2FleetAdmin;
let loaderIds: string[];

beforeAll(async () => {
  moto = await startMoto();
  const lt = await new EC2Client(moto.clientConfig).send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'l',
      LaunchTemplateData: { ImageId: 'ami-12c6146b' },
    }),
  );
  fleet = new Ec2FleetAdmin(
    { launchTemplateId: lt.LaunchTemplate!.LaunchTemplateId!, subnetIds: [] },
    moto.clientConfig,
  );
  loaderIds = await fleet.launch({
    runId: 'probe-run',
    count: 2,
    instanceType: 'c5.large',
    tags: { 'fleetbench:run-id': 'probe-run', 'fleetbench:role': 'loader' },
  });
});
afterAll(async () => {
  await moto?.stop();
});

function probe(online: (ids: string[]) => Promise<string[]>): SsmClusterProbe {
  const commands = new SsmCommandRunner('doc', moto.clientConfig);
  commands.online = online;
  return new SsmClusterProbe(
    {
      fleet,
      commands,
      document: PROBE_DOCUMENT,
      waitMs: 20_000,
      pollMs: 200,
    },
    moto.clientConfig,
  );
}

const endpoints = [
  { host: '10.0.0.1', port: 9042 },
  { host: '10.0.1.1', port: 9042 },
];

it('sends the probe document to the first online loader with the endpoints as a parameter; no output = no answer', async () => {
  const p = probe(async (ids) => ids);
  // what the adapter sent, as the SDK serialises it (moto's ListCommands lists every instance it knows)
  const sentInputs: { InstanceIds?: string[]; DocumentName?: string }[] = [];
  p.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SendCommandCommand') sentInputs.push(args.input as never);
      return next(args);
    },
    { step: 'initialize' },
  );
  const health = await p.check('cql', endpoints, { runId: 'probe-run' });
  expect(health).toEqual([
    { endpoint: '10.0.0.1:9042', ok: false, detail: 'no answer from the probe' },
    { endpoint: '10.0.1.1:9042', ok: false, detail: 'no answer from the probe' },
  ]);
  const sent = await new SSMClient(moto.clientConfig).send(new ListCommandsCommand({}));
  const cmd = sent.Commands!.find((c) => c.Comment === 'fleetbench node health')!;
  expect(cmd.DocumentName).toBe(PROBE_DOCUMENT);
  expect(sentInputs).toHaveLength(1);
  expect(sentInputs[0]!.InstanceIds).toEqual([[...loaderIds].sort()[0]]);
  expect(cmd.Parameters!.action).toEqual(['health-cql']);
  expect(cmd.Parameters!.endpoints).toEqual(['10.0.0.1:9042 10.0.1.1:9042']);
  expect(cmd.Parameters!.table).toEqual(['-']);
});

it('no loader online yet: nothing is sent, every node is reported waiting for one', async () => {
  const before = (await new SSMClient(moto.clientConfig).send(new ListCommandsCommand({}))).Commands!.length;
  const health = await probe(async () => []).check('alternator', endpoints, { runId: 'probe-run' });
  expect(health.map((h) => h.detail)).toEqual([
    'no loader online to probe from yet',
    'no loader online to probe from yet',
  ]);
  expect((await new SSMClient(moto.clientConfig).send(new ListCommandsCommand({}))).Commands!.length).toBe(
    before,
  );
});

it('schema creation fails unless the script confirms it', async () => {
  await expect(
    probe(async (ids) => ids).createSchema(
      { api: 'alternator', endpoint: 'http://10.0.0.1:8000', table: 'fleetbench-t', keyAttribute: 'p' },
      { runId: 'probe-run' },
    ),
  ).rejects.toThrow(/creating the alternator schema on i-[0-9a-f]+ ended/);
});

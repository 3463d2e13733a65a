/**
 * The network modes and what the stack costs while idle: the default (public) template has no
 * interface endpoint and no NAT gateway and costs under $5 a month idle; the private mode has exactly
 * the endpoints the loaders use; the README states the figures this computes from the templates.
 * Templates are synthesized with bundling skipped (only resources matter here).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { cfnLintErrors } from '../support/cfn-lint';
import { idleCost, loadPriceBook, type IdleCost, type TemplateLike } from '../../lib/core/cost';
import { AwsSolutionsChecks } from 'cdk-nag';
import { NAG_ACKNOWLEDGEMENTS, applyNagSuppressions } from '../../stacks/nag-suppressions';
import { IDLE_MODES, synthStack, type IdleMode } from '../../stacks/idle-cost';
import type { FleetbenchStack } from '../../stacks/fleetbench-stack';

jest.setTimeout(120_000);

const book = loadPriceBook();
const synthesized = new Map<IdleMode, { stack: FleetbenchStack; template: TemplateLike; cost: IdleCost }>();
beforeAll(() => {
  for (const mode of IDLE_MODES) {
    const { stack, template } = synthStack(mode);
    synthesized.set(mode, { stack, template, cost: idleCost(template, book) });
  }
});
const of = (mode: IdleMode) => synthesized.get(mode)!;
const resources = (mode: IdleMode, type: string) =>
  Object.values(of(mode).template.Resources ?? {}).filter((r) => r.Type === type);

describe('default network (public)', () => {
  it('has no interface endpoint, no NAT gateway, no Elastic IP; idle cost under $5 a month', () => {
    // synthesized with no network setting: the default is the public network
    const outputs = (of('public').template as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    expect(outputs.Network!.Value).toBe('public');
    const endpoints = resources('public', 'AWS::EC2::VPCEndpoint');
    expect(endpoints.map((e) => e.Properties?.VpcEndpointType).sort()).toEqual(['Gateway', 'Gateway']);
    expect(resources('public', 'AWS::EC2::NatGateway')).toEqual([]);
    expect(resources('public', 'AWS::EC2::EIP')).toEqual([]);
    expect(of('public').cost.usdPerMonth.toUsd()).toBeLessThan(5);
  });
});

describe('private network', () => {
  it('has the SSM, ssmmessages, ec2messages, Logs, CloudWatch (for the agent PutMetricData) and Secrets Manager endpoints in two AZs, and no STS one', () => {
    const services = resources('private', 'AWS::EC2::VPCEndpoint')
      .filter((e) => e.Properties?.VpcEndpointType === 'Interface')
      .map((e) => {
        const name = JSON.stringify(e.Properties?.ServiceName);
        return [name.match(/\.([a-z0-9]+)"[\]}]*$/)?.[1], (e.Properties?.SubnetIds as unknown[]).length];
      })
      .sort();
    expect(services).toEqual([
      ['ec2messages', 2],
      ['logs', 2],
      ['monitoring', 2],
      ['secretsmanager', 2],
      ['ssm', 2],
      ['ssmmessages', 2],
    ]);
    // no Keyspaces endpoint: Plan refuses keyspaces targets on this network (it is told the mode)
    const plan = resources('private', 'AWS::Lambda::Function').find((f) =>
      JSON.stringify(f.Properties?.Environment ?? {}).includes('LOADER_AZ_COUNT'),
    );
    expect(
      (plan?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables.LOADER_NETWORK,
    ).toBe('private');
    // 6 endpoints × 2 AZs × 730 h × $0.01 (https://aws.amazon.com/privatelink/pricing/)
    const line = of('private').cost.lines.find((l) => l.item.startsWith('VPC interface endpoint'))!;
    expect(line.usdPerMonth.toUsd()).toBe(87.6);
    expect(resources('private', 'AWS::EC2::NatGateway')).toEqual([]);
  });

  it('cdk-nag: nothing left unacknowledged, the private-only acknowledgements are used; cfn-lint: no errors', () => {
    expect(applyNagSuppressions(of('private').stack)).toEqual([]);
    const findings = new AwsSolutionsChecks()
      .validateScope(of('private').stack)
      .violations.map((v) => v.ruleName);
    const privateOnly = NAG_ACKNOWLEDGEMENTS.filter((a) => a.network === 'private');
    expect(privateOnly.filter((a) => !findings.some((f) => a.pattern.test(f)))).toEqual([]);
    expect(cfnLintErrors(of('private').template)).toEqual([]);
  });
});

describe('README', () => {
  it("states each network mode's idle cost as computed from its template", () => {
    const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const stated = Object.fromEntries(
      [...readme.matchAll(/^\| `(public|private|existing-vpc)`[^|]*\|.*\| \*\*\$(\d+\.\d\d)\*\* \|$/gm)].map(
        (m) => [m[1], m[2]],
      ),
    );
    const computed = Object.fromEntries(
      IDLE_MODES.map((m) => [m, of(m).cost.usdPerMonth.toUsd().toFixed(2)]),
    );
    expect(stated).toEqual(computed);
  });
});

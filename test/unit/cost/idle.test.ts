/**
 * idleCost over hand-written templates, against AWS's list prices (us-east-1): NAT gateway $0.045/h
 * (https://aws.amazon.com/vpc/pricing/), public IPv4 $0.005/h, interface endpoint $0.01 per AZ-hour
 * (https://aws.amazon.com/privatelink/pricing/), 730 hours a month.
 */
import { idleCost, loadPriceBook } from '../../../lib/core/cost';

const book = loadPriceBook('2024-11');

it('a NAT gateway with its Elastic IP and two interface endpoints over three subnets', () => {
  const cost = idleCost(
    {
      Resources: {
        Nat: { Type: 'AWS::EC2::NatGateway', Properties: {} },
        Eip: { Type: 'AWS::EC2::EIP', Properties: {} },
        Ssm: {
          Type: 'AWS::EC2::VPCEndpoint',
          Properties: { VpcEndpointType: 'Interface', SubnetIds: ['a', 'b', 'c'] },
        },
        Logs: {
          Type: 'AWS::EC2::VPCEndpoint',
          Properties: { VpcEndpointType: 'Interface', SubnetIds: ['a', 'b', 'c'] },
        },
        S3: { Type: 'AWS::EC2::VPCEndpoint', Properties: { VpcEndpointType: 'Gateway' } },
        Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
      },
    },
    book,
  );
  expect(cost.lines.map((l) => [l.item, l.count, l.usdPerMonth.toUsd()])).toEqual([
    ['VPC interface endpoint × AZ', 6, 43.8],
    ['NAT gateway', 1, 32.85],
    ['public IPv4 address (Elastic IP or instance in the template)', 1, 3.65],
  ]);
  expect(cost.usdPerMonth.toUsd()).toBe(80.3);
});

it('a template of per-use resources only costs nothing idle', () => {
  const cost = idleCost(
    {
      Resources: { Fn: { Type: 'AWS::Lambda::Function' }, Sm: { Type: 'AWS::StepFunctions::StateMachine' } },
    },
    book,
  );
  expect(cost.lines).toEqual([]);
  expect(cost.usdPerMonth.toUsd()).toBe(0);
});

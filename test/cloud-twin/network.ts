/**
 * The twin's VPC network: what an instance may open, read from the template's security groups, the way
 * ./iam.ts reads what a role may call. An instance's connection (a node's bootstrap download, a loader's
 * AWS call, a loader's probe of a node, a node's gossip to its seed) must be allowed by an egress rule of
 * the instance's group and, to another group, by an ingress rule of that group. Security groups are
 * stateful (answers come back) and filter neither DNS nor the instance metadata service
 * (https://docs.aws.amazon.com/vpc/latest/userguide/vpc-security-groups.html), so those are not checked.
 *
 * Where an AWS service is: S3 and DynamoDB behind the VPC's gateway endpoints, whose destinations are the
 * services' AWS-managed prefix lists (https://docs.aws.amazon.com/vpc/latest/privatelink/gateway-endpoints.html):
 * a rule naming that list or any IPv4 address (0.0.0.0/0) admits them. Every other service is a public
 * HTTPS endpoint (the public network mode) or an interface endpoint in the VPC (the private mode).
 */
import { twinPrefixListId, type Template } from './template';

export interface SgRule {
  protocol: string;
  from: number;
  to: number;
  cidr?: string;
  /** The peer group (logical id). */
  group?: string;
  prefixList?: string;
}

export type Destination =
  { kind: 'service'; service: string } | { kind: 'group'; group: string } | { kind: 'address'; ip: string };

/** Services behind the stack's gateway endpoints (loader-fleet.ts), by the SigV4 signing name. */
const GATEWAY_SERVICES = new Set(['s3', 'dynamodb']);
/** An address of a public AWS endpoint (in 52.94.0.0/16, where AWS's regional endpoints answer). */
const PUBLIC_ENDPOINT_IP = '52.94.0.10';

const logicalIdOf = (v: unknown): string | undefined => {
  const o = v as { 'Fn::GetAtt'?: [string, string]; Ref?: string } | undefined;
  return o?.['Fn::GetAtt']?.[0] ?? o?.Ref;
};

export class TwinNetwork {
  constructor(
    private readonly t: Template,
    /** The VPC's CIDR block (interface endpoints of the private mode have addresses in it). */
    private readonly vpcCidr: string,
  ) {}

  /** A group's rules of one direction: inline on the group and separate Ingress/Egress resources. */
  rules(group: string, dir: 'egress' | 'ingress'): SgRule[] {
    const inline = (
      (this.t.Resources[group]?.Properties?.[
        dir === 'egress' ? 'SecurityGroupEgress' : 'SecurityGroupIngress'
      ] ?? []) as Record<string, unknown>[]
    ).map((r): Record<string, unknown> => ({ ...r, GroupId: { Ref: group } }));
    const type = dir === 'egress' ? 'AWS::EC2::SecurityGroupEgress' : 'AWS::EC2::SecurityGroupIngress';
    const separate = Object.values(this.t.Resources)
      .filter((r) => r.Type === type && logicalIdOf(r.Properties?.GroupId) === group)
      .map((r) => r.Properties as Record<string, unknown>);
    return [...inline, ...separate].map((r) => {
      const peer = dir === 'egress' ? r.DestinationSecurityGroupId : r.SourceSecurityGroupId;
      const protocol = String(r.IpProtocol);
      return {
        protocol,
        from: protocol === '-1' ? 0 : Number(r.FromPort),
        to: protocol === '-1' ? 65535 : Number(r.ToPort),
        ...(typeof r.CidrIp === 'string' ? { cidr: r.CidrIp } : {}),
        ...(peer ? { group: logicalIdOf(peer) } : {}),
        ...(typeof r.DestinationPrefixListId === 'string' ? { prefixList: r.DestinationPrefixListId } : {}),
      } as SgRule;
    });
  }

  /** Whether the template has an interface endpoint for a service (the private mode). */
  private interfaceEndpoint(service: string): boolean {
    return Object.values(this.t.Resources).some(
      (r) =>
        r.Type === 'AWS::EC2::VPCEndpoint' &&
        r.Properties?.VpcEndpointType === 'Interface' &&
        JSON.stringify(r.Properties?.ServiceName).includes(`.${service}`),
    );
  }

  private admits(rule: SgRule, port: number, to: Destination): boolean {
    if (!(rule.protocol === '-1' || (rule.protocol === 'tcp' && rule.from <= port && port <= rule.to)))
      return false;
    // an instance of a group has an address in the VPC: a CIDR rule covering the VPC admits it too
    if (to.kind === 'group')
      return (
        rule.group === to.group ||
        (rule.cidr !== undefined && cidrContains(rule.cidr, firstAddress(this.vpcCidr)))
      );
    const ip =
      to.kind === 'address'
        ? to.ip
        : GATEWAY_SERVICES.has(to.service)
          ? undefined
          : this.interfaceEndpoint(to.service)
            ? firstAddress(this.vpcCidr)
            : PUBLIC_ENDPOINT_IP;
    if (to.kind === 'service' && GATEWAY_SERVICES.has(to.service))
      return rule.prefixList === twinPrefixListId(to.service) || rule.cidr === '0.0.0.0/0';
    return rule.cidr !== undefined && ip !== undefined && cidrContains(rule.cidr, ip);
  }

  /**
   * Why a TCP connection from an instance in `group` to `to` on `port` cannot be opened (undefined: it can):
   * no egress rule of the group admits it, or (to another group) no ingress rule of that group.
   */
  refused(group: string, to: Destination, port: number): string | undefined {
    if (!this.rules(group, 'egress').some((r) => this.admits(r, port, to)))
      return `no egress rule of ${group} admits tcp/${port} to ${describe(to)}`;
    if (to.kind === 'group') {
      const from: Destination = { kind: 'group', group };
      if (!this.rules(to.group, 'ingress').some((r) => this.admits(r, port, from)))
        return `no ingress rule of ${to.group} admits tcp/${port} from ${group}`;
    }
    return undefined;
  }
}

export function describe(to: Destination): string {
  if (to.kind === 'service') return `${to.service} (HTTPS)`;
  if (to.kind === 'group') return `group ${to.group}`;
  return to.ip;
}

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

export function cidrContains(cidr: string, ip: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string];
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(toNumber(base) / size) * size;
  const n = toNumber(ip);
  return n >= start && n < start + size;
}

function firstAddress(cidr: string): string {
  const n = toNumber(cidr.split('/')[0]!) + 4;
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

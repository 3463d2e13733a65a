/**
 * What a synthesized stack costs while no run is going, computed from its CloudFormation template and
 * a price book's `idle` prices: every resource type billed by the hour or the month whether used or
 * not. Everything else in the stack (Lambda, Step Functions, S3, Athena, SNS, Scheduler, gateway
 * endpoints, custom metrics published only during runs) is billed per use and costs nothing idle;
 * log and object storage grows with past runs and is not an idle charge of the stack itself.
 */
import { InputError } from '../common/errors';
import { usd, type Price, type PriceBook } from './book';
import { Q, sum } from './decimal';

/** The part of a template this reads: resource types and properties. */
export interface TemplateLike {
  Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

export interface IdleCostLine {
  /** What is billed, e.g. "VPC interface endpoint × AZ". */
  item: string;
  /** Billed units: endpoint-AZs, addresses, keys, dashboards, alarms ... */
  count: number;
  /** The book's price and its unit. */
  price: Price;
  /** Hours billed per month for hourly prices (the book's hoursPerMonth), 1 for monthly ones. */
  periods: number;
  usdPerMonth: Q;
}

export interface IdleCost {
  lines: IdleCostLine[];
  usdPerMonth: Q;
  book: string;
}

type Resources = NonNullable<TemplateLike['Resources']>;

function ofType(resources: Resources, type: string): Record<string, unknown>[] {
  return Object.values(resources)
    .filter((r) => r.Type === type)
    .map((r) => r.Properties ?? {});
}

/** A VPC endpoint is billed per AZ it has a network interface in: one per subnet. */
function interfaceEndpointAzs(resources: Resources): number {
  return ofType(resources, 'AWS::EC2::VPCEndpoint')
    .filter((p) => p.VpcEndpointType === 'Interface')
    .reduce((n, p) => n + (Array.isArray(p.SubnetIds) ? p.SubnetIds.length : 1), 0);
}

export function idleCost(template: TemplateLike, book: PriceBook): IdleCost {
  const prices = book.idle;
  if (!prices)
    throw new InputError([
      { path: `${book.file} (idle)`, message: `price book "${book.id}" has no idle prices` },
    ]);
  const r = template.Resources ?? {};
  const hours = book.hoursPerMonth;
  const rows: [string, number, Price, number][] = [
    ['VPC interface endpoint × AZ', interfaceEndpointAzs(r), prices.interfaceEndpointAzHour, hours],
    ['NAT gateway', ofType(r, 'AWS::EC2::NatGateway').length, prices.natGatewayHour, hours],
    // Elastic IPs (a NAT gateway's included) exist while idle; instances' auto-assigned public
    // addresses exist only while they run, and the stack creates no instance
    [
      'public IPv4 address (Elastic IP or instance in the template)',
      ofType(r, 'AWS::EC2::EIP').length + ofType(r, 'AWS::EC2::Instance').length,
      prices.publicIpv4Hour,
      hours,
    ],
    ['KMS customer managed key', ofType(r, 'AWS::KMS::Key').length, prices.kmsKeyMonth, 1],
    ['CloudWatch dashboard', ofType(r, 'AWS::CloudWatch::Dashboard').length, prices.dashboardMonth, 1],
    ['CloudWatch alarm', ofType(r, 'AWS::CloudWatch::Alarm').length, prices.alarmMonth, 1],
    ['Secrets Manager secret', ofType(r, 'AWS::SecretsManager::Secret').length, prices.secretMonth, 1],
  ];
  const lines = rows
    .filter(([, count]) => count > 0)
    .map(([item, count, price, periods]) => ({
      item,
      count,
      price,
      periods,
      usdPerMonth: usd(price).mul(count).mul(periods),
    }));
  return { lines, usdPerMonth: sum(lines.map((l) => l.usdPerMonth)), book: book.id };
}

/** A table for humans: one line per billed item and the total. */
export function formatIdleCost(title: string, cost: IdleCost): string {
  const out = [`${title}: $${cost.usdPerMonth.toUsd().toFixed(2)} per month idle (price book ${cost.book})`];
  for (const l of cost.lines) {
    const per =
      l.periods === 1
        ? `$${l.price.usd}/${l.price.unit}`
        : `$${l.price.usd}/${l.price.unit} × ${l.periods} h`;
    out.push(`  ${l.item}: ${l.count} × ${per} = $${l.usdPerMonth.toUsd().toFixed(2)}  (${l.price.source})`);
  }
  if (!cost.lines.length) out.push('  nothing billed while idle');
  return out.join('\n');
}

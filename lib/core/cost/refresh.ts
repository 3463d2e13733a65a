/**
 * `fleetbench prices refresh` and the stack's scheduled refresh: every price the cost model uses, asked of
 * the AWS Price List Query API (GetProducts, filtered by region and product attributes), and a dated book
 * made of the answers. Each price keeps its SKU, effective date and offer version, and its tiers as the API
 * gives them. A price the model needs and the API does not give is an error naming it; a missing optional
 * section (Standard-IA, Keyspaces, DAX) is left out with a note; a kind with a refresh hook of its own
 * (TargetKind.priceRefresh, ./price-refresh-hook.ts) takes the prices it finds in the answers to its own queries,
 * each one it lacks left out with a note. Pure: the calls go through `PriceListPort`.
 */
import { InputError } from '../common/errors';
import { parsePriceBook, type Price, type PriceBook, type PriceBookData } from './book';
import type { PriceListPort, PriceQuery } from '../common/ports';
import { firstPaidTier, shiftDecimal, withoutRegionPrefix, type PriceListItem } from './price-list';
import { TARGET_KINDS } from '../targets/registry';
import type { KindPriceRefresh } from './price-refresh-hook';

export type { PriceListPort, PriceQuery } from '../common/ports';

/** The Price List Query API answers in these regions only (its endpoints: api.pricing.<region>.amazonaws.com). */
export const PRICE_LIST_API_REGIONS = ['us-east-1', 'eu-central-1', 'ap-south-1'] as const;

/** The endpoint to ask for `region`'s prices: any endpoint serves every region; the nearest is chosen. */
export function priceListEndpointRegion(region: string): string {
  if (
    region.startsWith('eu-') ||
    region.startsWith('me-') ||
    region.startsWith('af-') ||
    region.startsWith('il-')
  )
    return 'eu-central-1';
  if (region.startsWith('ap-')) return 'ap-south-1';
  return 'us-east-1';
}

/** A price of the book: where it goes, which product gives it, and the power of ten from the API's unit. */
export interface PriceLine {
  /** The book's field, dotted (e.g. "dynamodb.standard.wcuHour", "ec2.c5.2xlarge" as ["ec2", "c5.2xlarge"]). */
  field: string[];
  query: PriceQuery;
  /** The product's usage type without its region prefix ("USE1-", "EU-", ...). */
  usagetype: string;
  /** The book's unit is 10^exp of the API's (per million requests: 6). */
  exp: number;
  unit: string;
  /** Optional sections are left out when the API lacks one of their prices. */
  section?: 'dynamodb.standardIa' | 'keyspaces' | 'dax';
}

const DYNAMO_CLASS: [string, string, number, string][] = [
  ['wcuHour', 'WriteCapacityUnit-Hrs', 0, 'WCU-hour'],
  ['rcuHour', 'ReadCapacityUnit-Hrs', 0, 'RCU-hour'],
  ['wruPerMillion', 'WriteRequestUnits', 6, '1,000,000 write request units'],
  ['rruPerMillion', 'ReadRequestUnits', 6, '1,000,000 read request units'],
  ['storageGbMonth', 'TimedStorage-ByteHrs', 0, 'GB-month'],
];

const PIPELINE: [string, string, string, number, string][] = [
  ['stepFunctionsPerThousandTransitions', 'AmazonStates', 'StateTransition', 3, '1,000 state transitions'],
  ['lambdaPerGbSecond', 'AWSLambda', 'Lambda-GB-Second', 0, 'GB-second (x86)'],
  ['lambdaPerMillionRequests', 'AWSLambda', 'Request', 6, '1,000,000 requests'],
  ['cloudWatchPerMetricMonth', 'AmazonCloudWatch', 'CW:MetricMonitorUsage', 0, 'custom metric-month'],
  ['cloudWatchPerThousandRequests', 'AmazonCloudWatch', 'CW:Requests', 3, '1,000 API requests'],
  ['s3PerGbMonth', 'AmazonS3', 'TimedStorage-ByteHrs', 0, 'GB-month'],
  ['s3PerThousandPuts', 'AmazonS3', 'Requests-Tier1', 3, '1,000 PUT/COPY/POST/LIST requests'],
  ['s3PerThousandGets', 'AmazonS3', 'Requests-Tier2', 3, '1,000 GET requests'],
  ['athenaPerTbScanned', 'AmazonAthena', 'DataScannedInTB', 0, 'TB scanned'],
];

/** EC2 On-Demand, Linux, shared tenancy, no pre-installed software, as the EC2 price list names them. */
export const EC2_LINUX_SHARED = {
  operatingSystem: 'Linux',
  tenancy: 'Shared',
  preInstalledSw: 'NA',
  capacitystatus: 'Used',
  licenseModel: 'No License required',
} as const;

/** Every price the model uses for `region`; EC2 instance and DAX node types are the ones the model knows. */
export function priceLines(
  region: string,
  known: { instanceTypes: string[]; daxNodeTypes: string[] },
): PriceLine[] {
  const byRegion = (serviceCode: string): PriceQuery => ({ serviceCode, filters: { regionCode: region } });
  const lines: PriceLine[] = [];
  for (const [field, usagetype, exp, unit] of DYNAMO_CLASS) {
    lines.push({
      field: ['dynamodb', 'standard', field],
      query: byRegion('AmazonDynamoDB'),
      usagetype,
      exp,
      unit,
    });
    lines.push({
      field: ['dynamodb', 'standardIa', field],
      query: byRegion('AmazonDynamoDB'),
      usagetype: `IA-${usagetype}`,
      exp,
      unit,
      section: 'dynamodb.standardIa',
    });
  }
  for (const [field, usagetype, exp, unit] of DYNAMO_CLASS)
    lines.push({
      field: ['keyspaces', field],
      query: byRegion('AmazonMCS'),
      usagetype: `MCS-${usagetype}`,
      exp,
      unit,
      section: 'keyspaces',
    });
  for (const t of known.instanceTypes)
    lines.push({
      field: ['ec2', t],
      query: {
        serviceCode: 'AmazonEC2',
        filters: { regionCode: region, instanceType: t, ...EC2_LINUX_SHARED },
      },
      usagetype: `BoxUsage:${t}`,
      exp: 0,
      unit: 'instance-hour',
    });
  lines.push({
    field: ['ebs', 'gp3GbMonth'],
    query: { serviceCode: 'AmazonEC2', filters: { regionCode: region, volumeApiName: 'gp3' } },
    usagetype: 'EBS:VolumeUsage.gp3',
    exp: 0,
    unit: 'GB-month',
  });
  for (const [field, serviceCode, usagetype, exp, unit] of PIPELINE)
    lines.push({ field: ['pipeline', field], query: byRegion(serviceCode), usagetype, exp, unit });
  for (const n of known.daxNodeTypes)
    lines.push({
      field: ['dax', n],
      query: byRegion('AmazonDAX'),
      usagetype: `NodeUsage:${n}`,
      exp: 0,
      unit: 'node-hour',
      section: 'dax',
    });
  return lines;
}

export function queryKey(q: PriceQuery): string {
  return JSON.stringify([q.serviceCode, Object.entries(q.filters).sort(([a], [b]) => a.localeCompare(b))]);
}

/** A usage type with or without its region prefix is the line's ("IA-", "MCS-" are not region prefixes). */
export function usagetypeMatches(actual: string | undefined, wanted: string): boolean {
  if (actual === undefined) return false;
  return actual === wanted || withoutRegionPrefix(actual) === wanted;
}

function entryOf(
  line: Pick<PriceLine, 'exp' | 'unit' | 'usagetype'>,
  item: PriceListItem,
  region: string,
): Price {
  const paid = firstPaidTier(item);
  const usd = shiftDecimal(paid ? paid.usd : '0', line.exp);
  const tiered = item.tiers.length > 1;
  return {
    usd,
    unit: line.unit,
    region,
    date: item.effectiveDate.slice(0, 10),
    source:
      `AWS Price List Query API (GetProducts ${item.serviceCode}, offer version ${item.version}, ` +
      `published ${item.publicationDate}), SKU ${item.sku}`,
    ...(tiered
      ? {
          note: `tiered as the API gives it (see tiers); priced at the first paid tier (${paid?.beginRange ?? '0'}–${paid?.endRange ?? 'Inf'} ${paid?.unit ?? ''})`,
        }
      : {}),
    priceList: {
      serviceCode: item.serviceCode,
      sku: item.sku,
      usagetype: item.attributes.usagetype ?? line.usagetype,
      offerTermCode: item.offerTermCode,
      effectiveDate: item.effectiveDate,
      offerVersion: item.version,
      publicationDate: item.publicationDate,
    },
    tiers: item.tiers.map((t) => ({
      beginRange: t.beginRange,
      endRange: t.endRange,
      usd: t.usd,
      unit: t.unit,
      description: t.description,
    })),
  };
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[path[path.length - 1]!] = value;
}

/** The product answering a line: exactly one, or a problem naming the line and the SKUs. */
function pick(line: PriceLine, items: PriceListItem[]): { item?: PriceListItem; problem?: string } {
  const hits = items.filter((i) => usagetypeMatches(i.attributes.usagetype, line.usagetype));
  const name = `${line.field.join('.')} (${line.query.serviceCode}, usage type ${line.usagetype})`;
  if (hits.length === 1) return { item: hits[0]! };
  if (!hits.length) return { problem: `${name}: the Price List has no such product` };
  return { problem: `${name}: ${hits.length} products match (SKUs ${hits.map((h) => h.sku).join(', ')})` };
}

export interface RefreshInput {
  region: string;
  /** The book the model's constants come from (hours per month, free tier, loader CPU) and its known types. */
  base: PriceBook;
  /** When the prices were asked for (the book's date). */
  nowMs: number;
}

/** Ask the API for every price and make the book; an InputError names every required price it lacks. */
export async function refreshPriceBook(prices: PriceListPort, input: RefreshInput): Promise<PriceBook> {
  const { region, base } = input;
  const lines = priceLines(region, {
    instanceTypes: Object.keys(base.ec2),
    daxNodeTypes: Object.keys(base.dax ?? {}),
  });
  const answers = new Map<string, PriceListItem[]>();
  for (const q of [...lines.map((l) => l.query), ...KIND_REFRESHES.flatMap((k) => k.queries(region))]) {
    const key = queryKey(q);
    if (!answers.has(key)) answers.set(key, await prices.getProducts(q));
  }
  return bookFromAnswers(lines, answers, input);
}

/** The kinds' own refresh hooks (TargetKind.priceRefresh), in the registry's order. */
const KIND_REFRESHES: KindPriceRefresh[] = Object.values(TARGET_KINDS).flatMap((k) =>
  k.priceRefresh ? [k.priceRefresh] : [],
);

/** The book from the API's answers (by queryKey); lines of an optional section missing drop the section. */
export function bookFromAnswers(
  lines: PriceLine[],
  answers: Map<string, PriceListItem[]>,
  { region, base, nowMs }: RefreshInput,
): PriceBook {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  const id = `aws-${region}-${day}`;
  const data: Record<string, unknown> = {};
  const required: string[] = [];
  const dropped = new Map<string, string>();
  for (const line of lines) {
    const { item, problem } = pick(line, answers.get(queryKey(line.query)) ?? []);
    if (item) setPath(data, line.field, entryOf(line, item, region));
    else if (line.section) {
      if (!dropped.has(line.section)) dropped.set(line.section, problem!);
    } else required.push(problem!);
  }
  if (required.length)
    throw new InputError(
      required.map((message) => ({
        path: `prices refresh --region ${region}`,
        message: `${message}; the model needs this price`,
      })),
    );
  for (const section of dropped.keys()) setPath(data, section.split('.'), undefined);
  // the kinds' own prices: every price each kind's hook takes from the answers to its queries
  const kindNotes: string[] = [];
  const kindSections: Record<string, unknown> = {};
  for (const hook of KIND_REFRESHES) {
    const taken = hook.picks((q) => answers.get(queryKey(q)) ?? [], region);
    for (const p of taken.picks) {
      setPath(data, p.field, entryOf({ ...p, exp: 0 }, p.item, region));
      kindSections[p.field[0]!] = data[p.field[0]!];
    }
    kindNotes.push(...taken.notes);
  }
  const dynamodb = data.dynamodb as Record<string, unknown>;
  if (dynamodb.standardIa === undefined) delete dynamodb.standardIa;
  const book: PriceBookData = {
    id,
    title: `${region} list prices from the AWS Price List Query API, ${day}`,
    date: day,
    currency: 'USD',
    region,
    hoursPerMonth: base.hoursPerMonth,
    notes: [
      `Made by \`fleetbench prices refresh --region ${region}\` on ${new Date(nowMs).toISOString()} from the Price List Query API (GetProducts, On-Demand terms); each price names its SKU, effective date and offer version.`,
      `Hours per month, the DynamoDB free tier's summary and the loader CPU figures are carried over from book ${base.id}; the API's own free tiers are the zero-priced tiers of each price.`,
      ...[...dropped].map(([section, why]) => `No ${section} prices: ${why}.`),
      ...kindNotes,
    ],
    dynamodb: {
      ...(dynamodb as Pick<PriceBookData['dynamodb'], 'standard' | 'standardIa'>),
      freeTier: {
        ...base.dynamodb.freeTier,
        source: `${base.dynamodb.freeTier.source} (carried over from book ${base.id})`,
      },
    },
    ec2: data.ec2 as PriceBookData['ec2'],
    ebs: data.ebs as PriceBookData['ebs'],
    pipeline: data.pipeline as PriceBookData['pipeline'],
    ...(base.loaderCpu ? { loaderCpu: base.loaderCpu } : {}),
    ...(data.keyspaces && !dropped.has('keyspaces')
      ? { keyspaces: data.keyspaces as PriceBookData['keyspaces'] }
      : {}),
    ...(data.dax && !dropped.has('dax') ? { dax: data.dax as PriceBookData['dax'] } : {}),
    ...(kindSections as Partial<PriceBookData>),
  };
  return parsePriceBook(JSON.parse(JSON.stringify(book)), `${id}.json`);
}

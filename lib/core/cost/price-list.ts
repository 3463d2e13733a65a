/**
 * The AWS Price List Query API's answers, read: one product of a GetProducts `PriceList` (a JSON string,
 * https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html) parsed
 * into its product attributes and On-Demand price dimensions, tiers kept as the API gives them
 * (`beginRange`/`endRange`, https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-service-price-list-file-for-services.html).
 * Pure: the calls are lib/aws/pricing.ts's.
 */
import { z } from 'zod';
import { InputError } from '../common/errors';

const dimensionSchema = z.object({
  rateCode: z.string().min(1),
  description: z.string().default(''),
  unit: z.string().min(1),
  beginRange: z.string().default('0'),
  endRange: z.string().default('Inf'),
  pricePerUnit: z.object({ USD: z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal string') }),
});

const termSchema = z.object({
  offerTermCode: z.string().min(1),
  sku: z.string().min(1),
  effectiveDate: z.string().min(1),
  priceDimensions: z.record(z.string(), dimensionSchema),
});

/** One element of GetProducts' `PriceList`, after JSON.parse. */
const itemSchema = z.object({
  product: z.object({
    sku: z.string().min(1),
    productFamily: z.string().optional(),
    attributes: z.record(z.string(), z.string()),
  }),
  serviceCode: z.string().min(1),
  // GetProducts: terms.OnDemand["<sku>.<offerTermCode>"] (the bulk offer file nests one level deeper, by SKU)
  terms: z.object({ OnDemand: z.record(z.string(), termSchema).optional() }).loose(),
  version: z.string().min(1),
  publicationDate: z.string().min(1),
});

/** A price dimension of an On-Demand term: one tier, `endRange` "Inf" for the open-ended last. */
export interface PriceTier {
  rateCode: string;
  description: string;
  /** The API's unit ("Hrs", "GB-Mo", "WriteRequestUnits", ...). */
  unit: string;
  beginRange: string;
  endRange: string;
  /** USD per one `unit`, the API's decimal string. */
  usd: string;
}

/** A product with its On-Demand price, as the Price List gives it. */
export interface PriceListItem {
  serviceCode: string;
  sku: string;
  productFamily: string;
  attributes: Record<string, string>;
  /** The offer's version (e.g. "20261101000000") and publication date. */
  version: string;
  publicationDate: string;
  offerTermCode: string;
  effectiveDate: string;
  /** Tiers in order of `beginRange`. */
  tiers: PriceTier[];
}

/** One `PriceList` entry (a JSON string) read; `where` names it in errors. */
export function parsePriceListItem(text: string, where: string): PriceListItem {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InputError([{ path: where, message: `not valid JSON: ${(e as Error).message}` }]);
  }
  const r = itemSchema.safeParse(data);
  if (!r.success) {
    throw new InputError(
      r.error.issues.map((i) => ({
        path: `${where} (${i.path.join('.') || 'top level'})`,
        message: `${i.message} (expected a Price List product, format aws_v1)`,
      })),
    );
  }
  const it = r.data;
  const terms = Object.values(it.terms.OnDemand ?? {});
  if (terms.length !== 1) {
    throw new InputError([
      {
        path: `${where} (terms.OnDemand)`,
        message: `expected one On-Demand term for SKU ${it.product.sku}; found ${terms.length}`,
      },
    ]);
  }
  const term = terms[0]!;
  const tiers = Object.values(term.priceDimensions)
    .map((d) => ({
      rateCode: d.rateCode,
      description: d.description,
      unit: d.unit,
      beginRange: d.beginRange,
      endRange: d.endRange,
      usd: d.pricePerUnit.USD,
    }))
    .sort((a, b) => Number(a.beginRange) - Number(b.beginRange));
  return {
    serviceCode: it.serviceCode,
    sku: it.product.sku,
    productFamily: it.product.productFamily ?? '',
    attributes: it.product.attributes,
    version: it.version,
    publicationDate: it.publicationDate,
    offerTermCode: term.offerTermCode,
    effectiveDate: term.effectiveDate,
    tiers,
  };
}

/** A decimal string times 10^`exp`, exactly, without trailing zeros ("0.0000006250", 6 → "0.625"). */
export function shiftDecimal(value: string, exp: number): string {
  const [whole = '0', frac = ''] = value.split('.');
  const digits = (whole + frac).replace(/^0+(?=\d)/, '');
  let point = whole.replace(/^0+(?=\d)/, '').length + exp;
  let d = digits;
  if (whole.replace(/^0+/, '') === '') {
    // leading zeros of the whole part were dropped with it: count from the fraction
    d = frac;
    point = exp;
  }
  if (point >= d.length) d = d + '0'.repeat(point - d.length);
  else if (point < 0) {
    d = '0'.repeat(-point) + d;
    point = 0;
  }
  const int = d.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  const rest = d.slice(point).replace(/0+$/, '');
  return rest ? `${int}.${rest}` : int;
}

/** The first tier with a price above zero (a free tier first is kept in `tiers`, not priced). */
export function firstPaidTier(item: PriceListItem): PriceTier | undefined {
  return item.tiers.find((t) => /[1-9]/.test(t.usd));
}

/** A region's usage-type prefix: "EU-" (eu-west-1) or letters and a digit ("USE1-", "EUC1-", "APN1-"). */
const REGION_PREFIX = /^(?:EU|(?:US|EU|AP|CA|SA|ME|AF|IL|UG|MX)[A-Z]\d)-(.*)$/;

/** A usage type without its region prefix ("EU-NodeUsage:db.r7g.large" → "NodeUsage:db.r7g.large"). */
export function withoutRegionPrefix(usagetype: string): string {
  return REGION_PREFIX.exec(usagetype)?.[1] ?? usagetype;
}

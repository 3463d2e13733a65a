/**
 * PriceListPort on AWS: the Price List Query API's GetProducts, every page (NextToken), each `PriceList`
 * entry parsed by lib/core/cost/price-list.ts. The API has endpoints in us-east-1, eu-central-1 and
 * ap-south-1 only: the client is made for one of them (priceListEndpointRegion), whatever the region
 * whose prices are asked for.
 */
import {
  GetProductsCommand,
  PricingClient,
  type GetProductsCommandOutput,
  type PricingClientConfig,
} from '@aws-sdk/client-pricing';
import { parsePriceListItem, type PriceListItem } from '../core/cost/price-list';
import {
  PRICE_LIST_API_REGIONS,
  priceListEndpointRegion,
  type PriceListPort,
  type PriceQuery,
} from '../core/cost/refresh';
import { translate } from './errors';

export interface AwsPriceListConfig {
  /** The region whose prices are asked for: the nearest API endpoint is chosen for it. */
  pricesRegion: string;
  /** An endpoint URL instead (tests: the local stand-in). */
  endpoint?: string;
  credentials?: PricingClientConfig['credentials'];
}

/** The page size GetProducts allows at most. */
const MAX_RESULTS = 100;

export class AwsPriceList implements PriceListPort {
  private readonly client: PricingClient;
  /** The API endpoint's region (one of PRICE_LIST_API_REGIONS). */
  readonly apiRegion: string;

  constructor(config: AwsPriceListConfig) {
    this.apiRegion = priceListEndpointRegion(config.pricesRegion);
    if (!(PRICE_LIST_API_REGIONS as readonly string[]).includes(this.apiRegion))
      throw new Error(`no Price List API endpoint in ${this.apiRegion}`);
    this.client = new PricingClient({
      region: this.apiRegion,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
    });
  }

  async getProducts(query: PriceQuery): Promise<PriceListItem[]> {
    const items: PriceListItem[] = [];
    let token: string | undefined;
    let page = 0;
    do {
      page++;
      let out: GetProductsCommandOutput;
      try {
        out = await this.client.send(
          new GetProductsCommand({
            ServiceCode: query.serviceCode,
            FormatVersion: 'aws_v1',
            MaxResults: MAX_RESULTS,
            Filters: Object.entries(query.filters).map(([Field, Value]) => ({
              Type: 'TERM_MATCH',
              Field,
              Value,
            })),
            ...(token ? { NextToken: token } : {}),
          }),
        );
      } catch (err) {
        throw translate('pricing', `GetProducts ${query.serviceCode}`, err);
      }
      // each entry is a JSON string (the SDK may hand it over as its lazy JSON string: String() gives the text)
      const list = (out.PriceList ?? []) as unknown[];
      list.forEach((text, i) =>
        items.push(
          parsePriceListItem(String(text), `GetProducts ${query.serviceCode} page ${page} PriceList[${i}]`),
        ),
      );
      token = out.NextToken || undefined;
    } while (token);
    return items;
  }
}

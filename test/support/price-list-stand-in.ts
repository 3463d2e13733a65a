/**
 * A local stand-in for the AWS Price List Query API's GetProducts (moto server does not implement `pricing`):
 * an HTTP server speaking the API's JSON 1.1 protocol (X-Amz-Target AWSPriceListService.GetProducts) to the
 * real @aws-sdk/client-pricing. It serves the products of test/fixtures/price-list/<region>/*.json: ServiceCode
 * and TERM_MATCH filters as the API applies them (attribute equals value), at most `pageSize` per page with a
 * NextToken (the API may return fewer than MaxResults), each PriceList entry a JSON string. Every request is
 * kept (target, body, the signature's credential scope) for the tests to check.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

export const PRICE_LIST_FIXTURES = path.join(__dirname, '..', 'fixtures', 'price-list');

export interface FixtureItem {
  product: { sku: string; productFamily?: string; attributes: Record<string, string> };
  serviceCode: string;
  [k: string]: unknown;
}

export interface SeenRequest {
  target: string;
  body: {
    ServiceCode?: string;
    Filters?: { Type: string; Field: string; Value: string }[];
    NextToken?: string;
    MaxResults?: number;
  };
  /** The SigV4 credential scope's region and service (`.../<region>/<service>/aws4_request`). */
  scope: string;
}

export interface PriceListStandIn {
  endpoint: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** The fixture products of one region's directory. */
export function fixtureItems(region = 'us-east-1'): FixtureItem[] {
  const dir = path.join(PRICE_LIST_FIXTURES, region);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as FixtureItem[]);
}

/**
 * The us-east-1 fixtures relabelled for another region (regionCode, location and the usage types' region
 * prefix): the prices stay us-east-1's. For plumbing tests only (which book a plan picks), not for figures.
 */
export function relabelled(
  items: FixtureItem[],
  region: string,
  prefix: string,
  location: string,
): FixtureItem[] {
  return items.map((it) => {
    const a = it.product.attributes;
    const usagetype = a.usagetype ? `${prefix}-${a.usagetype.replace(/^USE1-/, '')}` : undefined;
    return {
      ...it,
      product: {
        ...it.product,
        attributes: { ...a, regionCode: region, location, ...(usagetype ? { usagetype } : {}) },
      },
    };
  });
}

function matches(item: FixtureItem, body: SeenRequest['body']): boolean {
  if (item.serviceCode !== body.ServiceCode) return false;
  return (body.Filters ?? []).every((f) =>
    f.Field === 'productFamily'
      ? item.product.productFamily === f.Value
      : item.product.attributes[f.Field] === f.Value,
  );
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body));
}

export async function startPriceListStandIn(items: FixtureItem[], pageSize = 2): Promise<PriceListStandIn> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as SeenRequest['body'];
      const scope =
        /Credential=[^/]+\/\d+\/([^/]+\/[^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      requests.push({ target, body, scope });
      if (target !== 'AWSPriceListService.GetProducts')
        return send(res, 400, {
          __type: 'InvalidParameterException',
          message: `unsupported target ${target}`,
        });
      const hits = items.filter((it) => matches(it, body));
      const start = body.NextToken ? Number(Buffer.from(body.NextToken, 'base64').toString('utf8')) : 0;
      if (!Number.isInteger(start) || start < 0 || start > hits.length)
        return send(res, 400, { __type: 'InvalidNextTokenException', message: 'bad NextToken' });
      const size = Math.min(pageSize, body.MaxResults ?? 100);
      const page = hits.slice(start, start + size);
      const next =
        start + size < hits.length ? Buffer.from(String(start + size)).toString('base64') : undefined;
      send(res, 200, {
        FormatVersion: 'aws_v1',
        PriceList: page.map((it) => JSON.stringify(it)),
        ...(next ? { NextToken: next } : {}),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

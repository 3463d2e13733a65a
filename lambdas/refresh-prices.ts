import { AwsPriceList } from '../lib/aws/pricing';
import { refreshPrices } from '../lib/core/pipeline';
import { requireEnv } from './shared/env';
import { stepHandler } from './shared/handler';

/** Monthly and on deploy: the stack's region's price book from the Price List API into the results bucket. */
export const handler = stepHandler('RefreshPrices', (_event: unknown, p) =>
  refreshPrices({
    prices: new AwsPriceList({ pricesRegion: requireEnv('AWS_REGION') }),
    store: p.store,
    clock: p.clock,
    region: requireEnv('AWS_REGION'),
  }),
);

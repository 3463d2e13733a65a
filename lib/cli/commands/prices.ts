import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { AwsPriceList } from '../../aws/pricing';
import { loadPriceBook } from '../../core/cost/book';
import { priceBookKey } from '../../core/cost/book-choice';
import { refreshPriceBook } from '../../core/cost/refresh';
import { DEFAULT_RESULTS_DIR } from './query';
import { defaultPricesRegion } from '../price-book';

/** `fleetbench prices refresh`: a dated, sourced book for one region from the AWS Price List Query API. */
export function register(program: Command): void {
  const prices = program.command('prices').description('price books: refresh one from the AWS Price List');
  prices
    .command('refresh')
    .description(
      "ask the AWS Price List Query API (pricing:GetProducts) for every price the cost model uses in a region and write a dated book; plan uses the newest book for a spec's region",
    )
    .option('--region <region>', 'the region whose prices to fetch; default: AWS_REGION, else us-east-1')
    .option('--out <file>', 'where to write the book; default: <results>/prices/<region>/<id>.json')
    .option('--results <dir>', 'local results directory', DEFAULT_RESULTS_DIR)
    .option('--endpoint <url>', 'a Price List API endpoint instead of AWS’s (a local stand-in)')
    .action(async (opts: { region?: string; out?: string; results: string; endpoint?: string }) => {
      const region = opts.region ?? defaultPricesRegion();
      const api = new AwsPriceList({
        pricesRegion: region,
        ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      });
      const book = await refreshPriceBook(api, { region, base: loadPriceBook(), nowMs: Date.now() });
      const out = opts.out ?? path.join(opts.results, ...priceBookKey(book).split('/'));
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, JSON.stringify({ ...book, file: undefined }, null, 2) + '\n');
      process.stdout.write(
        `Wrote price book ${book.id} (${region}, from the Price List API in ${api.apiRegion}) to ${out}\n`,
      );
    });
}

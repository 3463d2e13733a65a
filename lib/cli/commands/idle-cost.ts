/**
 * `fleetbench idle-cost [--network public|private|existing-vpc] [--prices <book>] [--region <r>]
 * [--results <dir> | --stack <name>] [--json]`: what the deployed stack costs per month while no run is
 * going, per network mode, computed from the template each mode synthesizes and the price book (see
 * lib/core/cost/idle.ts), chosen as every command chooses it (lib/cli/price-book.ts).
 */
import type { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { formatIdleCost } from '../../core/cost';
import { IDLE_MODES, idleCostOf, type IdleMode } from '../../../stacks/idle-cost';
import { addBookOptions, bookForCommand, type BookCommandOptions } from '../price-book';

interface Options extends BookCommandOptions {
  network?: string;
  json?: boolean;
}

export function register(program: Command): void {
  addBookOptions(
    program
      .command('idle-cost')
      .description(
        "the deployed stack's monthly cost while idle, per network mode, from its synthesized template",
      )
      .option('--network <mode>', `one of ${IDLE_MODES.join(', ')} (default: all)`)
      .option('--json', 'machine-readable output'),
    "price book id or JSON file (default: the newest for the region that has the stack's idle prices)",
  ).action(async (o: Options) => {
    if (o.network !== undefined && !(IDLE_MODES as readonly string[]).includes(o.network))
      throw new InputError([
        { path: '--network', message: `expected one of ${IDLE_MODES.join(', ')}, found "${o.network}"` },
      ]);
    const modes = o.network ? [o.network as IdleMode] : IDLE_MODES;
    // a refreshed book has no idle prices (the refresh does not ask for them): the choice passes it over
    const { book } = await bookForCommand(o, (b) => b.idle !== undefined);
    const costs = modes.map((m) => ({ mode: m, cost: idleCostOf(m, book) }));
    if (o.json) {
      const rows = costs.map(({ mode, cost }) => ({
        network: mode,
        usdPerMonth: cost.usdPerMonth.toUsd(),
        book: cost.book,
        lines: cost.lines.map((l) => ({
          item: l.item,
          count: l.count,
          unitUsd: l.price.usd,
          unit: l.price.unit,
          periods: l.periods,
          usdPerMonth: l.usdPerMonth.toUsd(),
          source: l.price.source,
        })),
      }));
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return;
    }
    process.stdout.write(costs.map(({ mode, cost }) => formatIdleCost(mode, cost)).join('\n\n') + '\n');
  });
}

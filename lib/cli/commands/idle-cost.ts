/**
 * `fleetbench idle-cost [--network public|private|existing-vpc] [--prices <book>] [--json]`: what the
 * deployed stack costs per month while no run is going, per network mode, computed from the template
 * each mode synthesizes and the price book (see lib/core/cost/idle.ts).
 */
import type { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { formatIdleCost } from '../../core/cost';
import { IDLE_MODES, idleCostOf, type IdleMode } from '../../../stacks/idle-cost';

interface Options {
  network?: string;
  prices?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('idle-cost')
    .description(
      "the deployed stack's monthly cost while idle, per network mode, from its synthesized template",
    )
    .option('--network <mode>', `one of ${IDLE_MODES.join(', ')} (default: all)`)
    .option('--prices <book>', 'price book id or JSON file (default: the newest built-in book)')
    .option('--json', 'machine-readable output')
    .action((o: Options) => {
      if (o.network !== undefined && !(IDLE_MODES as readonly string[]).includes(o.network))
        throw new InputError([
          { path: '--network', message: `expected one of ${IDLE_MODES.join(', ')}, found "${o.network}"` },
        ]);
      const modes = o.network ? [o.network as IdleMode] : IDLE_MODES;
      const costs = modes.map((m) => ({ mode: m, cost: idleCostOf(m, o.prices) }));
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

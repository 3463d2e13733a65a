/**
 * `fleetbench cost <input.json> [--prices <book>] [--json]`: the monthly cost of a target at a
 * throughput. The input is one object (or an array of them, to compare targets):
 * `{ "target": <run-spec target>, "throughput": { "readsPerSec", "writesPerSec" },
 *    "itemBytes"?: n, "dataset"?: {...}, "storageGb"?: n, "utilization"?: f, "freeTier"?: b }`.
 */
import * as fs from 'node:fs';
import { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import {
  type CostReport,
  type DynamoCostReport,
  type PriceBook,
  builtInBookIds,
  headlineTotals,
  isTableReport,
  monthlyCost,
} from '../../core/cost';
import type { KeyspacesCostReport } from '../../core/targets/keyspaces/cost';
import { addBookOptions, bookForCommand, type BookCommandOptions } from '../price-book';

interface CostOptions extends BookCommandOptions {
  json?: boolean;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError([{ path: file, message: `cannot read: ${(e as Error).message}` }]);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError([{ path: file, message: `not valid JSON: ${(e as Error).message}` }]);
  }
}

function inFile(file: string, where: string, fn: () => CostReport): CostReport {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError) {
      throw new InputError(
        e.issues.map((i) => ({
          path: [file + where, i.path].filter(Boolean).join(': '),
          message: i.message,
        })),
      );
    }
    throw e;
  }
}

export interface CostDocument {
  priceBook: string;
  results: CostReport[];
  /** For each ordered pair of results and pricing model, how many times more the first costs. */
  ratios: { a: string; b: string; ratio: number }[];
}

/** Monthly cost of one input, or of a list of inputs with the ratios between them. */
export function costDocument(data: unknown, book: PriceBook, file = 'input'): CostReport | CostDocument {
  if (!Array.isArray(data)) return inFile(file, '', () => monthlyCost(data, book));
  if (data.length === 0)
    throw new InputError([{ path: file, message: 'expected a cost input or a non-empty array of them' }]);
  const results = data.map((d, i) => inFile(file, `[${i}]`, () => monthlyCost(d, book)));
  const named: { name: string; usd: number }[] = [];
  results.forEach((r, i) => {
    const label = r.target.id ?? `[${i}]`;
    for (const [model, usd] of Object.entries(headlineTotals(r))) {
      named.push({ name: model === 'total' ? label : `${label} ${model}`, usd });
    }
  });
  const ratios: CostDocument['ratios'] = [];
  for (const a of named) {
    for (const b of named) {
      if (a !== b && b.usd > 0)
        ratios.push({ a: a.name, b: b.name, ratio: Math.round((a.usd / b.usd) * 1000) / 1000 });
    }
  }
  return { priceBook: book.id, results, ratios };
}

const usd = (x: number | undefined, digits = 2) =>
  x === undefined
    ? '-'
    : `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;

/** Per-million figures keep their fractions of a cent. */
const perMillion = (x: number | undefined) => usd(x, 6);

const count = (x: number) => x.toLocaleString('en-US');

/** A DynamoDB or Keyspaces table: the same lines, sized by the item (DynamoDB) or the encoded row (Keyspaces). */
function renderTable(r: DynamoCostReport | KeyspacesCostReport): string[] {
  const size =
    'itemBytes' in r
      ? `item ${r.itemBytes} B (${r.itemBytesFrom})`
      : `row ${r.rowBytes} B (Keyspaces' encoded size)`;
  const out = [
    `${size}: ${r.units.writeUnitsPerWrite} write unit(s) per write, ` +
      `${r.units.readUnitsPerRead} read unit(s) per ${r.readConsistency} read; storage ${r.storageGb} GB`,
  ];
  const { needed, configured } = r.capacity;
  const rows: [string, Record<string, number>][] = [
    [`provisioned (${count(needed.wcu)} WCU, ${count(needed.rcu)} RCU)`, r.monthly.provisioned],
  ];
  if (r.monthly.provisionedAsConfigured && configured)
    rows.push([
      `provisioned as configured (${count(configured.wcu)} WCU, ${count(configured.rcu)} RCU)`,
      r.monthly.provisionedAsConfigured,
    ]);
  rows.push(['on-demand', r.monthly.onDemand]);
  for (const [label, m] of rows)
    out.push(
      `  ${label}: writes ${usd(m.writes)} + reads ${usd(m.reads)} + storage ${usd(m.storage)} = ${usd(m.total)}/month`,
    );
  out.push(
    `  per million ops: provisioned ${perMillion(r.perMillionOps.provisioned)}, on-demand ${perMillion(r.perMillionOps.onDemand)}`,
    `  per billion ops: provisioned ${usd(r.perBillionOps.provisioned)}, on-demand ${usd(r.perBillionOps.onDemand)}`,
  );
  if ('dax' in r && r.dax)
    out.push(
      `  DAX: ${r.dax.nodes} × ${r.dax.nodeType} at $${r.dax.usdPerNodeHour}/node-hour = ${usd(r.dax.monthly)}/month; ` +
        `DynamoDB alone vs with DAX: provisioned ${usd(r.monthly.provisioned.total)} → ${usd(r.dax.withDax.provisioned)}, ` +
        `on-demand ${usd(r.monthly.onDemand.total)} → ${usd(r.dax.withDax.onDemand)}/month`,
    );
  return out;
}

function renderOne(r: CostReport): string {
  const name = `${r.target.kind}${r.target.id ? ` "${r.target.id}"` : ''}`;
  const out = [
    `${name} — price book ${r.priceBook} (${r.priceBookDate}), ${r.hoursPerMonth} h/month`,
    `throughput: ${count(r.throughput.readsPerSec)} reads/s + ${count(r.throughput.writesPerSec)} writes/s`,
  ];
  if (isTableReport(r)) out.push(...renderTable(r));
  else {
    const parts = Object.entries(r.monthly)
      .filter(([k]) => k !== 'total')
      .map(([k, v]) => `${k} ${usd(v)}`)
      .join(' + ');
    out.push(
      `  monthly: ${parts} = ${usd(r.monthly.total)}/month`,
      `  per million ops: ${perMillion(r.perMillionOps)}`,
      `  per billion ops: ${usd(r.perBillionOps)}`,
    );
  }
  return out.join('\n');
}

export function renderCost(doc: CostReport | CostDocument): string {
  if (!('results' in doc)) return renderOne(doc) + '\n';
  const ratioLines = doc.ratios.map((x) => `  ${x.a} / ${x.b} = ${x.ratio}`);
  return (
    doc.results.map(renderOne).join('\n\n') +
    (ratioLines.length ? `\n\nratios:\n${ratioLines.join('\n')}` : '') +
    '\n'
  );
}

export function register(program: Command): void {
  addBookOptions(
    program
      .command('cost')
      .description(
        'Monthly cost of a target at a throughput (DynamoDB and Keyspaces provisioned and on-demand, EC2 clusters, external services).',
      )
      .argument(
        '<input>',
        'cost input JSON file: {target, throughput, itemBytes|dataset, storageGb}, or an array of them',
      )
      .option('--json', 'print JSON'),
    `price book id (${builtInBookIds().join(', ')}) or path to a book JSON file; default: the newest for the region`,
  ).action(async (input: string, opts: CostOptions) => {
    const data = readJson(input);
    const { book } = await bookForCommand(opts);
    const doc = costDocument(data, book, input);
    if (opts.json) process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    else process.stdout.write(renderCost(doc));
  });
}

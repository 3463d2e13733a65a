/**
 * The cost figures the README and docs quote for examples are what `fleetbench plan` prints today: each is read from
 * the document's text (the sentence that states it) and compared, to the cent, with the plan of the example it names.
 * A change to the estimate that moves one of them fails here until the document says the new figure.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadSpecFile } from '../../../lib/cli/spec-file';
import { planRun } from '../../../lib/core/plan';

const root = path.join(__dirname, '..', '..', '..');
const text = (file: string) => readFileSync(path.join(root, file), 'utf8').replace(/\s+/g, ' ');
const planOf = (example: string) =>
  planRun(loadSpecFile(path.join(root, 'examples', `${example}.json`)).spec);
const usd = (s: string) => Number(s.replace(/[$,]/g, ''));
const line = (example: string, label: RegExp) => {
  const found = planOf(example).estimate.items.find((l) => label.test(l.label));
  if (!found) throw new Error(`no estimate line ${label} in ${example}`);
  return found.usd;
};

/** [document, the sentence's pattern with the figure as group 1, the figure from the plan] */
const FIGURES: [string, RegExp, () => number][] = [
  [
    'docs/cost-model.md',
    /For the `scylla-vs-dynamodb` example .*? the estimate is (\$[\d,.]+)/,
    () => planOf('scylla-vs-dynamodb').estimate.totalUsd,
  ],
  [
    'docs/cost-model.md',
    /250,000 WCU for its own [\d.]+ hours \((\$[\d,.]+)\)/,
    () => line('scylla-vs-dynamodb', /250,000 WCU/),
  ],
  [
    'README.md',
    /examples\/seed-000-dax\.json: .*? = (\$[\d,.]+)\)/,
    () => line('seed-000-dax', /DAX cluster/),
  ],
  [
    'docs/slo-search.md',
    /`examples\/seed-002-slo\.json` .*? estimated at (\$[\d,.]+)/,
    () => planOf('seed-002-slo').estimate.totalUsd,
  ],
  [
    'README.md',
    /of the run's (\$[\d,.]+) over [\d.]+ h/,
    () => planOf('seed-002-staircase').estimate.totalUsd,
  ],
  [
    'README.md',
    /`fleetbench plan examples\/keyspaces\.json` estimates the whole run at (\$[\d,.]+)/,
    () => planOf('keyspaces').estimate.totalUsd,
  ],
];

describe('cost figures quoted in the documents', () => {
  it.each(FIGURES)('%s: %s', (file, pattern, fromPlan) => {
    const m = pattern.exec(text(file));
    expect(m).not.toBeNull();
    expect(usd(m![1]!)).toBeCloseTo(fromPlan(), 2);
  });
});

/** Amazon DynamoDB tables (optionally behind DAX) as a target kind (../kind.ts). */
import type { DynamoDbTarget, RunSpec } from '../../spec/schema';
import { TABLE_PREFIX } from '../../common/ports';
import { daxResourceName, daxSpecFindings } from './dax';
import type { Findings, TargetKind } from '../kind';
import { DYNAMODB_MONTHLY_COST, DYNAMODB_RUN_COST } from './cost';
import { dynamoDbCellChecks } from './capacity-check';
import { provisionDynamoDb } from './provision';
import { configureDynamoDb, dynamoDbReady, dynamoDbRuntime } from './steps';
import { DAX_READY_POLL_SECONDS, DAX_READY_TIMEOUT_SECONDS } from './ready';
import { predictLocalCell, predictPlannedCell, tableModelOf } from '../../dynamodb-model/plan-cell';
import { DYNAMODB_TABLES } from './table-resource';
import { DAX_CLUSTERS } from './dax-resource';
import { DAX_ENTRY, TABLE_ENTRY } from './entries';
import { entryOf } from '../../resources/run-resource';
import { dynamoOpUnits } from '../../cost/workload-units';
import { daxMonthly } from './dax-cost';
import { compositeKeyOf, keyDesignIssues, keyDesignProperties, queryIssue } from './key-design';
import { predictOnDemandResponse } from '../../dynamodb-model/on-demand-response';
import { itemSizeIssue } from './item-size';

/**
 * DynamoDB's tag characters: AWS's without `@`
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TaggingRestrictions.html).
 */
const DYNAMODB_TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-]*$/u;

/**
 * Two targets naming one `existingTable`: side by side (`"execution": "parallel"`) each target's figures would include
 * the other's load on the table (its capacity, its partitions, its throttles), so it is refused. One after the other
 * (sequential, the default) the cells do not overlap, and measuring one table two ways (with and without DAX, strong
 * and eventual reads) is a fair study: it is kept, with a warning that the later target meets the table as the earlier
 * one left it (its writes, the partitions its load split).
 */
function sharedTableFindings(t: DynamoDbTarget, at: string, spec: RunSpec, out: Findings): void {
  if (!t.existingTable) return;
  const i = spec.targets.indexOf(t);
  const first = spec.targets.findIndex(
    (o, j) => j < i && o.kind === 'dynamodb' && o.existingTable === t.existingTable,
  );
  if (first < 0) return;
  if (spec.execution === 'parallel')
    out.issues.push({
      path: `${at}.existingTable`,
      message:
        `table "${t.existingTable}" is also targets[${first}]'s: with "execution": "parallel" each target's figures ` +
        `would include the other's load; give each target its own table, or run them "sequential"`,
    });
  else
    out.warnings.push(
      `${at}.existingTable: table "${t.existingTable}" is also targets[${first}]'s; run after it, this target meets ` +
        `the table as targets[${first}]'s cells left it (their writes, the partitions their load split)`,
    );
}

export const DYNAMODB: TargetKind<DynamoDbTarget> = {
  binding: () => 'dynamodb',
  properties: (t, { spec, table }) => ({
    table,
    'dynamodb.region': spec.region,
    'dynamodb.keyAttribute': t.keyAttribute,
    'dynamodb.consistentReads': String(t.consistentReads),
    ...keyDesignProperties(t, spec),
  }),
  specChecks(t, at, spec, out) {
    if (t.dax) daxSpecFindings(t, at, out.issues, out.warnings);
    keyDesignIssues(t, at, spec, out.issues);
    const tooLarge = itemSizeIssue(t, at, spec.dataset, 'a DynamoDB table');
    if (tooLarge) out.issues.push(tooLarge);
    if (t.keyDesign && t.existingTable)
      out.warnings.push(
        `${at}.keyDesign: table "${t.existingTable}" is reused as it is; its key schema must be this key design's`,
      );
    if (t.existingTable && spec.dataset.load)
      out.warnings.push(
        `${at}.existingTable: table "${t.existingTable}" is reused as it is; the load phase skips it`,
      );
    sharedTableFindings(t, at, spec, out);
  },
  queryIssue,
  metricsTable: (t, run) => entryOf(run, TABLE_ENTRY, t.id)?.name,
  opUnits: dynamoOpUnits,
  rateResponse: predictOnDemandResponse,
  deployChecks(t, at, _env, out) {
    // the steps' and loaders' roles are scoped to fleetbench-* tables: another name would be denied mid-run
    if (t.existingTable && !t.existingTable.startsWith(TABLE_PREFIX))
      out.issues.push({
        path: `${at}.existingTable`,
        message:
          `the pipeline's roles may use tables named ${TABLE_PREFIX}* only; got "${t.existingTable}" ` +
          `(restore a backup of it as ${TABLE_PREFIX}${t.existingTable}, or let the run create and load the table)`,
      });
  },
  // the run tags the tables it creates (an existingTable is not tagged)
  tagCharacters: (t) =>
    t.existingTable
      ? undefined
      : {
          allowed: DYNAMODB_TAG_CHARS,
          refusal: 'without "@": the run tags its DynamoDB tables, and DynamoDB refuses it',
        },
  cache: (t, book) =>
    t.dax
      ? { nodeType: t.dax.nodeType, nodes: t.dax.nodes, monthlyUsd: daxMonthly(book, t.dax).toUsd() }
      : undefined,
  tableName: (t, runScoped) => t.existingTable ?? runScoped,
  predict(spec, t, cell) {
    const prediction = predictPlannedCell(spec, t, cell);
    const local = { capacityScale: spec.local?.capacityScale, timeScale: spec.local?.timeScale };
    const localPrediction =
      (local.capacityScale ?? 1) !== 1 || local.timeScale !== undefined
        ? predictLocalCell(spec, t, cell, local)
        : null;
    return { ...(prediction ? { prediction } : {}), ...(localPrediction ? { localPrediction } : {}) };
  },
  accountNeeds(t, at) {
    if (t.existingTable) return {};
    if (t.billing.mode === 'provisioned')
      return { table: { path: `${at}.billing`, rcu: t.billing.rcu, wcu: t.billing.wcu } };
    const { maxReadRequestUnits: r, maxWriteRequestUnits: w } = t.billing;
    return r || w ? { table: { path: `${at}.billing`, rcu: r ?? 0, wcu: w ?? 0 } } : {};
  },
  localIssues: (t, at) => [
    ...(t.dax
      ? [
          {
            path: `${at}.dax`,
            message:
              "DAX runs only in a VPC of an AWS account (a cluster in the loaders' subnets) and nothing local stands " +
              'in for it: run this spec on AWS (fleetbench start), or remove "dax" to run the table alone here',
          },
        ]
      : []),
    // DynamoDB Local runs in memory, started for the run: ProvisionTarget would find no such table
    ...(t.existingTable
      ? [
          {
            path: `${at}.existingTable`,
            message:
              `expected no existingTable in local mode, found "${t.existingTable}": the local mode starts an empty ` +
              'DynamoDB Local (in memory) for each run, so no table is there to reuse; remove it to let the run create ' +
              'and load the table, or run this spec on AWS (fleetbench start)',
          },
        ]
      : []),
  ],
  localCapacity: (spec, t, scale) => ({
    keyAttribute: t.keyAttribute,
    model: tableModelOf(spec, t, scale),
    compositeKey: compositeKeyOf(t),
  }),
  loads: (t) => !t.existingTable,
  contextEntries: (t, { runId, table }) => [
    { type: TABLE_ENTRY.shape.type.value, targetId: t.id, name: table, owned: !t.existingTable },
    ...(t.dax
      ? [{ type: DAX_ENTRY.shape.type.value, targetId: t.id, name: daxResourceName(runId, t.id) }]
      : []),
  ],
  provision: provisionDynamoDb,
  notReady: dynamoDbReady,
  slowReady: {
    limits: { timeoutSeconds: DAX_READY_TIMEOUT_SECONDS, pollSeconds: DAX_READY_POLL_SECONDS },
    applies: (t) => t.dax !== undefined,
  },
  configureCell: configureDynamoDb,
  runtime: dynamoDbRuntime,
  resources: [DYNAMODB_TABLES, DAX_CLUSTERS],
  runCost: DYNAMODB_RUN_COST,
  monthlyCost: DYNAMODB_MONTHLY_COST,
  cellChecks: dynamoDbCellChecks,
};

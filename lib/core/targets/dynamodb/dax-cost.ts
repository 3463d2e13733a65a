/**
 * DAX cost: node-hours by node type (the price book's `dax` section). DAX bills every node of a cluster from
 * launch to termination, each partial node-hour as a full hour (usage type REG-NodeUsage:dax.<type>, product
 * AmazonDAX: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-understanding-billing.html#bp-understanding-billing.dax). It is added
 * to the table's own cost: reads DAX serves from cache cost no table read units, misses and every write do.
 */
import { InputError } from '../../common/errors';
import { PriceBook, usd } from '../../cost/book';
import { Q } from '../../cost/decimal';

export interface DaxCluster {
  nodeType: string;
  nodes: number;
}

/** The price of one node-hour, or an InputError naming the field and the node types the book has. */
export function daxNodeHourPrice(book: PriceBook, nodeType: string, fieldPath = 'dax.nodeType'): Q {
  const p = book.dax?.[nodeType];
  if (!p) {
    const known = Object.keys(book.dax ?? {});
    throw new InputError([
      {
        path: fieldPath,
        message: `price book "${book.id}" has no DAX price for node type "${nodeType}"; it has ${known.length ? known.join(', ') : 'no DAX prices'}`,
      },
    ]);
  }
  return usd(p);
}

function checkNodes(nodes: number, fieldPath: string): void {
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 11) {
    throw new InputError([
      { path: fieldPath, message: `expected 1 to 11 nodes (DAX's limit), got ${nodes}` },
    ]);
  }
}

/** A cluster for a month (the book's hoursPerMonth): nodes × node-hour price × hours. */
export function daxMonthly(book: PriceBook, c: DaxCluster, fieldPath = 'dax'): Q {
  checkNodes(c.nodes, `${fieldPath}.nodes`);
  return daxNodeHourPrice(book, c.nodeType, `${fieldPath}.nodeType`).mul(c.nodes).mul(book.hoursPerMonth);
}

/** The node-hours billed for a cluster that lives `seconds` (a run): every node's partial hour as a full hour. */
export function daxBilledNodeHours(c: DaxCluster, seconds: number, fieldPath = 'dax'): number {
  checkNodes(c.nodes, `${fieldPath}.nodes`);
  if (!(seconds >= 0)) throw new InputError([{ path: 'seconds', message: `expected ≥ 0, got ${seconds}` }]);
  return c.nodes * Math.ceil(seconds / 3600);
}

/** A cluster that lives `seconds` (a run), at the book's node-hour price. */
export function daxForDuration(book: PriceBook, c: DaxCluster, seconds: number, fieldPath = 'dax'): Q {
  const nodeHours = daxBilledNodeHours(c, seconds, fieldPath);
  return daxNodeHourPrice(book, c.nodeType, `${fieldPath}.nodeType`).mul(nodeHours);
}

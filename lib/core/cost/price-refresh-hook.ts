/**
 * A target kind's own prices in `fleetbench prices refresh` (TargetKind.priceRefresh): the GetProducts queries its
 * prices come from, and the book entries it takes from the answers, each price it cannot take left out with a note.
 * The refresh (./refresh.ts) asks the queries of every kind with the hook and writes their picks into the book.
 */
import type { PriceQuery } from '../common/ports';
import type { PriceListItem } from './price-list';

/** A price a kind takes: where it goes in the book, the book's unit (the API's, exponent 0) and the product. */
export interface PricePick {
  field: string[];
  usagetype: string;
  unit: string;
  item: PriceListItem;
}

export interface KindPriceRefresh {
  /** The queries its prices come from, in `region`. */
  queries(region: string): PriceQuery[];
  /** Its prices among the answers (`answers(q)`: the products GetProducts gave for a query), and a note for each one left out. */
  picks(answers: (q: PriceQuery) => PriceListItem[], region: string): { picks: PricePick[]; notes: string[] };
}

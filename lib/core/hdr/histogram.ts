/**
 * An integer-valued HdrHistogram with HdrHistogram's exact bucket layout and statistics
 * (`org.HdrHistogram.AbstractHistogram`, 2.1.12): equivalent-value ranges, `getValueAtPercentile`
 * (one ulp below the requested percentile, ceil of the count, highest equivalent value), `getMean`
 * (median equivalent value of every bucket, summed in index order), `getMinValue`/`getMaxValue`.
 *
 * Counts live in a Float64Array indexed like HdrHistogram's counts array (exact up to 2^53) that grows
 * on demand, so a histogram never needs a highest trackable value.
 */

export interface HistogramLayout {
  lowestDiscernibleValue: number;
  significantDigits: number;
}

/** A histogram's non-zero counts (Histogram.toSparse): layout, counts-array indices and their counts. */
export interface SparseHistogram {
  lowest: number;
  digits: number;
  i: number[];
  c: number[];
}

export class Histogram {
  readonly lowestDiscernibleValue: number;
  readonly significantDigits: number;
  readonly unitMagnitude: number;
  readonly subBucketHalfCountMagnitude: number;
  readonly subBucketHalfCount: number;
  /** counts[i] = number of values recorded in bucket i; `length` is the used prefix. */
  private counts: Float64Array;
  private used = 0;
  private total = 0;

  constructor(layout: HistogramLayout = { lowestDiscernibleValue: 1, significantDigits: 3 }) {
    const { lowestDiscernibleValue, significantDigits } = layout;
    if (!Number.isInteger(significantDigits) || significantDigits < 0 || significantDigits > 5) {
      throw new RangeError(`significant digits must be 0..5, got ${significantDigits}`);
    }
    if (!Number.isSafeInteger(lowestDiscernibleValue) || lowestDiscernibleValue < 1) {
      throw new RangeError(`lowest discernible value must be an integer >= 1, got ${lowestDiscernibleValue}`);
    }
    this.lowestDiscernibleValue = lowestDiscernibleValue;
    this.significantDigits = significantDigits;
    const largestValueWithSingleUnitResolution = 2 * Math.pow(10, significantDigits);
    const subBucketCountMagnitude = Math.ceil(Math.log2(largestValueWithSingleUnitResolution));
    this.subBucketHalfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
    this.subBucketHalfCount = 2 ** this.subBucketHalfCountMagnitude;
    this.unitMagnitude = Math.floor(Math.log2(lowestDiscernibleValue));
    this.counts = new Float64Array(4 * this.subBucketHalfCount);
  }

  /** True when both histograms index their counts the same way (so counts add index by index). */
  sameLayout(other: Histogram | HistogramLayout): boolean {
    return (
      this.lowestDiscernibleValue === other.lowestDiscernibleValue &&
      this.significantDigits === other.significantDigits
    );
  }

  get totalCount(): number {
    return this.total;
  }

  /** Number of leading counts-array slots in use (highest non-zero index + 1, or less). */
  get countsLength(): number {
    return this.used;
  }

  countAtIndex(index: number): number {
    return index < this.used ? this.counts[index] : 0;
  }

  private ensure(length: number): void {
    if (length > this.counts.length) {
      let n = this.counts.length;
      while (n < length) n *= 2;
      const grown = new Float64Array(n);
      grown.set(this.counts.subarray(0, this.used));
      this.counts = grown;
    }
    if (length > this.used) this.used = length;
  }

  /** Adds `count` at counts-array `index` (HdrHistogram's `addToCountAtIndex`). */
  addAtIndex(index: number, count: number): void {
    this.ensure(index + 1);
    this.counts[index] += count;
    this.total += count;
  }

  /** Adds n (index, count) pairs, as decoded from an interval (indices ascending). */
  addSparse(indices: Int32Array, values: Float64Array, n: number): void {
    if (n === 0) return;
    this.ensure(indices[n - 1] + 1);
    const counts = this.counts;
    let sum = 0;
    for (let k = 0; k < n; k++) {
      counts[indices[k]] += values[k];
      sum += values[k];
    }
    this.total += sum;
  }

  /** The non-zero counts as (index, count) pairs, indices ascending: a compact, exact copy of the counts. */
  toSparse(): SparseHistogram {
    const i: number[] = [];
    const c: number[] = [];
    for (let k = 0; k < this.used; k++)
      if (this.counts[k] > 0) {
        i.push(k);
        c.push(this.counts[k]);
      }
    return { lowest: this.lowestDiscernibleValue, digits: this.significantDigits, i, c };
  }

  /** Adds the counts of a sparse copy (same layout) into this histogram. */
  addSparseCopy(s: SparseHistogram): void {
    if (this.lowestDiscernibleValue !== s.lowest || this.significantDigits !== s.digits)
      throw new RangeError(
        `sparse histogram layout (lowest ${s.lowest}, ${s.digits} digits) differs from this one's ` +
          `(lowest ${this.lowestDiscernibleValue}, ${this.significantDigits} digits)`,
      );
    if (s.i.length === 0) return;
    this.ensure(s.i[s.i.length - 1] + 1);
    for (let k = 0; k < s.i.length; k++) this.addAtIndex(s.i[k], s.c[k]);
  }

  /** Empties the histogram (keeps its layout and storage). */
  reset(): void {
    this.counts.fill(0, 0, this.used);
    this.used = 0;
    this.total = 0;
  }

  /** `Histogram.add`: the counts of `other` (same layout) are added into this histogram. */
  add(other: Histogram): void {
    if (!this.sameLayout(other)) {
      throw new RangeError('cannot add histograms of different layouts');
    }
    this.ensure(other.used);
    for (let i = 0; i < other.used; i++) this.counts[i] += other.counts[i];
    this.total += other.total;
  }

  /** Records `count` occurrences of `value` (HdrHistogram's `recordValueWithCount`). */
  recordValue(value: number, count = 1): void {
    this.addAtIndex(this.indexOf(value), count);
  }

  // ------------------------------------------------------------------ layout arithmetic

  /** Counts-array index of a value (`countsArrayIndex`). */
  indexOf(value: number): number {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`value must be a safe integer >= 0`);
    const halfMag = this.subBucketHalfCountMagnitude;
    const scaled = Math.floor(value / 2 ** this.unitMagnitude);
    // bucket index = number of bits of (scaled | subBucketMask) - (halfMag + 1)
    const bits = Math.max(bitLength(scaled), halfMag + 1);
    const bucketIndex = bits - (halfMag + 1);
    const subBucketIndex = Math.floor(scaled / 2 ** bucketIndex);
    return (bucketIndex + 1) * this.subBucketHalfCount + (subBucketIndex - this.subBucketHalfCount);
  }

  /** Lowest value of the equivalent-value range at `index` (`valueFromIndex`). */
  valueFromIndex(index: number): number {
    let bucketIndex = Math.floor(index / this.subBucketHalfCount) - 1;
    let subBucketIndex = (index & (this.subBucketHalfCount - 1)) + this.subBucketHalfCount;
    if (bucketIndex < 0) {
      subBucketIndex -= this.subBucketHalfCount;
      bucketIndex = 0;
    }
    return subBucketIndex * 2 ** (bucketIndex + this.unitMagnitude);
  }

  /** Size of the equivalent-value range at `index`. */
  rangeSizeAtIndex(index: number): number {
    const bucketIndex = Math.max(Math.floor(index / this.subBucketHalfCount) - 1, 0);
    return 2 ** (bucketIndex + this.unitMagnitude);
  }

  highestEquivalentAtIndex(index: number): number {
    return this.valueFromIndex(index) + this.rangeSizeAtIndex(index) - 1;
  }

  medianEquivalentAtIndex(index: number): number {
    return this.valueFromIndex(index) + Math.floor(this.rangeSizeAtIndex(index) / 2);
  }

  // ------------------------------------------------------------------ statistics

  /** `getMinValue`: 0 when empty or when 0 was recorded, else the lowest equivalent value of the lowest bucket. */
  get min(): number {
    if (this.total === 0 || this.countAtIndex(0) > 0) return 0;
    for (let i = 1; i < this.used; i++) if (this.counts[i] > 0) return this.valueFromIndex(i);
    return 0;
  }

  /** `getMaxValue`: the highest equivalent value of the highest non-empty bucket (0 when empty). */
  get max(): number {
    for (let i = this.used - 1; i > 0; i--) if (this.counts[i] > 0) return this.highestEquivalentAtIndex(i);
    return 0;
  }

  /** `getMean`: Σ medianEquivalentValue × count (in index order, as doubles) ÷ total count. */
  get mean(): number {
    if (this.total === 0) return 0;
    let sum = 0;
    for (let i = 0; i < this.used; i++) {
      const c = this.counts[i];
      if (c > 0) sum += this.medianEquivalentAtIndex(i) * c;
    }
    return (sum * 1.0) / this.total;
  }

  /** `getValueAtPercentile(percentile)` with HdrHistogram 2.1.12's exact arithmetic. */
  valueAtPercentile(percentile: number): number {
    return this.valuesAtPercentiles([percentile])[0];
  }

  /** Several percentiles in one pass over the counts (any order). */
  valuesAtPercentiles(percentiles: readonly number[]): number[] {
    const targets = percentiles.map((p, k) => {
      const requested = Math.min(Math.max(nextDown(p), 0.0), 100.0);
      const fpCount = (requested * this.total) / 100.0;
      return { k, p, count: Math.max(Math.ceil(fpCount), 1) };
    });
    targets.sort((a, b) => a.count - b.count);
    const out = new Array<number>(percentiles.length).fill(0);
    let t = 0;
    let running = 0;
    for (let i = 0; i < this.used && t < targets.length; i++) {
      running += this.counts[i];
      while (t < targets.length && running >= targets[t].count) {
        const { k, p } = targets[t];
        out[k] = p === 0 ? this.valueFromIndex(i) : this.highestEquivalentAtIndex(i);
        t++;
      }
    }
    return out;
  }
}

function bitLength(v: number): number {
  if (v < 2 ** 32) return 32 - Math.clz32(v);
  return 32 + bitLength(Math.floor(v / 2 ** 32));
}

const scratch = new DataView(new ArrayBuffer(8));

/** Java's `Math.nextAfter(x, Double.NEGATIVE_INFINITY)` for finite x. */
export function nextDown(x: number): number {
  if (Number.isNaN(x) || x === -Infinity) return x;
  if (x === 0) return -Number.MIN_VALUE;
  scratch.setFloat64(0, x);
  const bits = scratch.getBigInt64(0);
  scratch.setBigInt64(0, x > 0 ? bits - 1n : bits + 1n);
  return scratch.getFloat64(0);
}

/**
 * Exact money arithmetic for the cost model.
 *
 * Prices such as $0.00000125 per request unit are not representable in binary floating point, and
 * the seeds' worked examples must come out "to the cent". Every quantity in the cost model is a
 * `Q`: an exact rational number held as two BigInts. Inputs are parsed from their shortest decimal
 * form (what `String(x)` prints for a JS number, or a decimal string), so `0.1` means exactly 1/10.
 * Only the final figure shown to a user is rounded, once, to cents.
 */

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$|^([+-])?\.(\d+)(?:[eE]([+-]?\d+))?$/;

export class Q {
  /** numerator */
  readonly n: bigint;
  /** denominator, always > 0 and coprime with n */
  readonly d: bigint;

  private constructor(n: bigint, d: bigint) {
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    const g = gcd(n, d);
    this.n = g > 1n ? n / g : n;
    this.d = g > 1n ? d / g : d;
  }

  static readonly ZERO = new Q(0n, 1n);
  static readonly ONE = new Q(1n, 1n);

  static ratio(n: bigint | number, d: bigint | number = 1n): Q {
    return new Q(BigInt(n), BigInt(d));
  }

  /** Exact value of a finite JS number (by its shortest decimal form) or of a decimal string. */
  static of(x: number | string | bigint | Q): Q {
    if (x instanceof Q) return x;
    if (typeof x === 'bigint') return new Q(x, 1n);
    if (typeof x === 'number' && !Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
    const s = String(x).trim();
    const m = DECIMAL.exec(s);
    if (!m) throw new RangeError(`not a decimal number: ${JSON.stringify(s)}`);
    const sign = (m[1] ?? m[5]) === '-' ? -1n : 1n;
    const intPart = m[2] ?? '0';
    const frac = (m[2] !== undefined ? m[3] : m[6]) ?? '';
    const exp = Number((m[2] !== undefined ? m[4] : m[7]) ?? '0');
    let n = BigInt(intPart + frac) * sign;
    let d = 10n ** BigInt(frac.length);
    if (exp > 0) n *= 10n ** BigInt(exp);
    else if (exp < 0) d *= 10n ** BigInt(-exp);
    return new Q(n, d);
  }

  add(o: Q | number): Q {
    const b = Q.of(o);
    return new Q(this.n * b.d + b.n * this.d, this.d * b.d);
  }
  sub(o: Q | number): Q {
    const b = Q.of(o);
    return new Q(this.n * b.d - b.n * this.d, this.d * b.d);
  }
  mul(o: Q | number): Q {
    const b = Q.of(o);
    return new Q(this.n * b.n, this.d * b.d);
  }
  div(o: Q | number): Q {
    const b = Q.of(o);
    if (b.n === 0n) throw new RangeError('division by zero');
    return new Q(this.n * b.d, this.d * b.n);
  }
  cmp(o: Q | number): number {
    const b = Q.of(o);
    const l = this.n * b.d;
    const r = b.n * this.d;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  isZero(): boolean {
    return this.n === 0n;
  }
  max(o: Q | number): Q {
    const b = Q.of(o);
    return this.cmp(b) >= 0 ? this : b;
  }
  min(o: Q | number): Q {
    const b = Q.of(o);
    return this.cmp(b) <= 0 ? this : b;
  }
  /** Smallest integer >= this. */
  ceil(): bigint {
    const q = this.n / this.d; // truncates toward zero
    return this.n > 0n && q * this.d !== this.n ? q + 1n : q;
  }
  /** Largest integer <= this. */
  floor(): bigint {
    const q = this.n / this.d;
    return this.n < 0n && q * this.d !== this.n ? q - 1n : q;
  }
  /** Whole cents, rounding half away from zero (how a price calculator rounds a bill line). */
  toCents(): bigint {
    const neg = this.n < 0n;
    const n = neg ? -this.n : this.n;
    const c = (n * 100n * 2n + this.d) / (2n * this.d);
    return neg ? -c : c;
  }
  /** USD rounded to cents, as a JS number (exact for any realistic bill). */
  toUsd(): number {
    return Number(this.toCents()) / 100;
  }
  /** Approximate value for display and for non-money quantities. */
  toNumber(): number {
    return Number(this.n) / Number(this.d);
  }
  toString(): string {
    return this.d === 1n ? this.n.toString() : `${this.n}/${this.d}`;
  }
}

/** Sum of a list of exact values. */
export function sum(xs: Iterable<Q>): Q {
  let s = Q.ZERO;
  for (const x of xs) s = s.add(x);
  return s;
}

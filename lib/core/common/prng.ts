/**
 * A small seeded pseudo-random generator (mulberry32: 32-bit state, period 2^32; public domain, Tommy Ettinger:
 * https://gist.github.com/tommyettinger/46a874533244883189143505d203312c) for the permutation test, the capacity
 * model's simulations and placements, and the emulator.
 * Not for cryptography; chosen because it is tiny, fast and gives the same sequence on every platform.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new RangeError(`seed: expected an integer, got ${seed}`);
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/** Fisher–Yates shuffle. */
export function shuffleInPlace(xs: { length: number; [i: number]: number }, rng: Prng): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    const tmp = xs[i];
    xs[i] = xs[j];
    xs[j] = tmp;
  }
}

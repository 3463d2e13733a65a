/**
 * YCSB 0.17.0's key choice, exactly as `site.ycsb.workloads.CoreWorkload` makes it, as key
 * popularities (the probability that one operation picks a given keynum) and as samplers.
 *
 * Sources (YCSB 0.17.0, https://github.com/brianfrankcooper/YCSB/tree/0.17.0/core/src/main/java/site/ycsb):
 * - generator/ZipfianGenerator.java: Gray et al.'s "Quickly generating billion-record synthetic
 *   databases" zipfian, θ = 0.99 (ZIPFIAN_CONSTANT), `nextLong`: u·zetan < 1 → rank 0,
 *   < 1 + 0.5^θ → rank 1, else floor(n·(η·u − η + 1)^α), α = 1/(1−θ),
 *   η = (1 − (2/n)^(1−θ)) / (1 − ζ(2,θ)/ζ(n,θ)).
 * - generator/ScrambledZipfianGenerator.java: a ZipfianGenerator over ITEM_COUNT = 10,000,000,000
 *   items (min 0, max ITEM_COUNT, so n = 10^10 + 1) with the precomputed ZETAN = 26.46902820178302,
 *   then `min + fnvhash64(rank) % itemcount`, itemcount = max − min + 1.
 * - Utils.java `fnvhash64`: FNV-1a over the 8 little-endian bytes of the long, then Math.abs.
 * - generator/HotspotIntegerGenerator.java, UniformLongGenerator.java, SequentialGenerator.java,
 *   SkewedLatestGenerator.java; CoreWorkload.java `nextKeynum` (re-draws a keynum above the last
 *   inserted one) and `buildKeyName` ("user" + fnvhash64(keynum) unless insertorder=ordered).
 */
import { Prng } from '../common/prng';

/** YCSB's θ (ZipfianGenerator.ZIPFIAN_CONSTANT); 0.17.0 has no property to change it. */
export const ZIPFIAN_THETA = 0.99;
/** ScrambledZipfianGenerator.ITEM_COUNT */
export const SCRAMBLED_ITEM_COUNT = 10_000_000_000;
/** ScrambledZipfianGenerator.ZETAN: ζ(10^10, 0.99), precomputed by YCSB. */
export const SCRAMBLED_ZETAN = 26.46902820178302;

const MASK64 = (1n << 64n) - 1n;
const FNV_OFFSET_BASIS_64 = 0xcbf29ce484222325n;
const FNV_PRIME_64 = 1099511628211n;

/** YCSB's Utils.fnvhash64 (a non-negative Java long). */
export function fnvhash64(val: number | bigint): bigint {
  let v = BigInt.asUintN(64, BigInt(val));
  let h = FNV_OFFSET_BASIS_64;
  for (let i = 0; i < 8; i++) {
    h ^= v & 0xffn;
    v >>= 8n;
    h = (h * FNV_PRIME_64) & MASK64;
  }
  const signed = BigInt.asIntN(64, h);
  // Math.abs(Long.MIN_VALUE) stays negative in Java; FNV never yields it for these inputs
  return signed < 0n ? -signed : signed;
}

/** How YCSB names its records: `insertorder` (hashed, its default, or ordered) and `zeropadding` (default 1). */
export interface KeyNaming {
  ordered?: boolean;
  zeroPadding?: number;
}

/**
 * The key YCSB's CoreWorkload builds for a keynum (`buildKeyName`): "user" + fnvhash64(keynum), or the keynum
 * itself with insertorder=ordered, left-padded with zeros to `zeropadding` digits.
 */
export function ycsbKeyName(keynum: number, naming: KeyNaming = {}): string {
  const digits = naming.ordered ? String(keynum) : fnvhash64(keynum).toString();
  return `user${'0'.repeat(Math.max(0, (naming.zeroPadding ?? 1) - digits.length))}${digits}`;
}

/** ζ(n, θ) = Σ_{i=1..n} 1/i^θ (exact sum up to 10^7, Euler–Maclaurin beyond). */
export function zeta(n: number, theta: number): number {
  const exact = Math.min(n, 10_000_000);
  let s = 0;
  for (let i = exact; i >= 1; i--) s += 1 / Math.pow(i, theta);
  if (n === exact) return s;
  // Σ_{i=a+1..n} i^-θ ≈ ∫_a^n x^-θ dx + (n^-θ − a^-θ)/2 − θ/12 (n^-θ-1 − a^-θ-1)
  const a = exact;
  const integral = (Math.pow(n, 1 - theta) - Math.pow(a, 1 - theta)) / (1 - theta);
  const ends = (Math.pow(n, -theta) - Math.pow(a, -theta)) / 2;
  const corr = (-theta / 12) * (Math.pow(n, -theta - 1) - Math.pow(a, -theta - 1));
  return s + integral + ends - corr;
}

/** The parameters of one YCSB ZipfianGenerator (ranks 0..items−1 from `base`). */
export interface ZipfianParams {
  items: number;
  theta: number;
  zetan: number;
  eta: number;
  alpha: number;
}

export function zipfianParams(
  items: number,
  theta = ZIPFIAN_THETA,
  zetan = zeta(items, theta),
): ZipfianParams {
  const zeta2 = zeta(2, theta);
  const eta = (1 - Math.pow(2 / items, 1 - theta)) / (1 - zeta2 / zetan);
  return { items, theta, zetan, eta, alpha: 1 / (1 - theta) };
}

/** The ZipfianGenerator inside every ScrambledZipfianGenerator with θ = 0.99. */
export const SCRAMBLED_ZIPFIAN = zipfianParams(SCRAMBLED_ITEM_COUNT + 1, ZIPFIAN_THETA, SCRAMBLED_ZETAN);

/** One draw of YCSB's ZipfianGenerator.nextLong for a uniform u in [0, 1). */
export function zipfianRank(z: ZipfianParams, u: number): number {
  const uz = u * z.zetan;
  if (uz < 1) return 0;
  if (uz < 1 + Math.pow(0.5, z.theta)) return 1;
  return Math.floor(z.items * Math.pow(z.eta * u - z.eta + 1, z.alpha));
}

/**
 * The u at which YCSB's formula branch reaches rank k: floor(n·(η·u − η + 1)^α) ≥ k
 * ⇔ u ≥ ((k/n)^(1/α) + η − 1) / η.
 */
function uAtRank(z: ZipfianParams, k: number): number {
  return (Math.pow(k / z.items, 1 / z.alpha) + z.eta - 1) / z.eta;
}

/**
 * Exact probabilities of ranks 0..count−1 under YCSB's ZipfianGenerator (not the ideal 1/(k+1)^θ:
 * YCSB's formula branch is Gray et al.'s approximation, and these are its own masses).
 */
export function zipfianRankProbabilities(z: ZipfianParams, count: number): Float64Array {
  const p = new Float64Array(count);
  const u0 = 1 / z.zetan;
  const u1 = (1 + Math.pow(0.5, z.theta)) / z.zetan;
  if (count > 0) p[0] = u0;
  if (count > 1) p[1] = u1 - u0;
  // the formula branch covers u in [u1, 1); its rank k occupies [uAtRank(k), uAtRank(k+1))
  let lo = Math.max(u1, uAtRank(z, 0));
  for (let k = 0; k < count; k++) {
    const hi = Math.min(1, Math.max(u1, uAtRank(z, k + 1)));
    if (hi > lo) p[k] = (p[k] ?? 0) + (hi - lo);
    lo = Math.max(lo, hi);
  }
  return p;
}

/**
 * Key popularity: `hot` keys with their own probabilities (descending), and the remaining
 * probability spread evenly over `restKeys` other keys.
 */
export interface KeyPopularity {
  hot: { keynum: number; p: number }[];
  restMass: number;
  restKeys: number;
  /** recordCount the popularity was computed for */
  recordCount: number;
}

export type KeyDistribution =
  | { type: 'uniform' }
  | { type: 'sequential' }
  | { type: 'zipfian' }
  | { type: 'latest' }
  | { type: 'hotspot'; dataFraction: number; opFraction: number };

/** How many zipfian ranks are folded exactly onto keys; the rest is spread evenly. */
const ZIPF_RANKS = 200_000;
/** Hot keys kept (by probability) in a popularity. */
const HOT_KEYS = 4_096;

function topOf(masses: Map<number, number>, recordCount: number): KeyPopularity {
  const all = [...masses.entries()].map(([keynum, p]) => ({ keynum, p }));
  all.sort((a, b) => b.p - a.p || a.keynum - b.keynum);
  const hot = all.slice(0, HOT_KEYS);
  const hotMass = hot.reduce((s, h) => s + h.p, 0);
  return {
    hot,
    restMass: Math.max(0, 1 - hotMass),
    restKeys: Math.max(0, recordCount - hot.length),
    recordCount,
  };
}

/**
 * Run-phase key popularity of a YCSB 0.17.0 CoreWorkload over `recordCount` loaded records
 * (no run-phase inserts, insertstart 0).
 */
export function keyPopularity(dist: KeyDistribution, recordCount: number): KeyPopularity {
  const key = `${JSON.stringify(dist)}|${recordCount}`;
  const cached = popularityCache.get(key);
  if (cached) return cached;
  const pop = computePopularity(dist, recordCount);
  if (popularityCache.size > 64) popularityCache.clear();
  popularityCache.set(key, pop);
  return pop;
}

const popularityCache = new Map<string, KeyPopularity>();

function computePopularity(dist: KeyDistribution, recordCount: number): KeyPopularity {
  if (!Number.isInteger(recordCount) || recordCount < 1)
    throw new RangeError(`recordCount must be a positive integer, got ${recordCount}`);
  switch (dist.type) {
    case 'uniform':
    case 'sequential':
      // UniformLongGenerator(0, n−1); SequentialGenerator cycles 0..n−1: each key 1/n
      return { hot: [], restMass: 1, restKeys: recordCount, recordCount };
    case 'hotspot': {
      // HotspotIntegerGenerator(0, n−1, df, of): hot set = the first (int)(n·df) keynums
      const hotCount = Math.floor(recordCount * dist.dataFraction);
      const cold = recordCount - hotCount;
      const pHot = hotCount > 0 ? dist.opFraction / hotCount : 0;
      const pCold = cold > 0 ? (hotCount > 0 ? 1 - dist.opFraction : 1) / cold : 0;
      // everything is even within its set; keep only the hotter set's first keys as "hot"
      if (pHot >= pCold && hotCount > 0 && hotCount <= HOT_KEYS) {
        const hot = Array.from({ length: hotCount }, (_, k) => ({ keynum: k, p: pHot }));
        return { hot, restMass: cold > 0 ? 1 - dist.opFraction : 0, restKeys: cold, recordCount };
      }
      // large hot sets: every key's probability is tiny; the model needs the keys only through
      // their partitions, and a set spread by the random hash loads every partition alike
      return { hot: [], restMass: 1, restKeys: recordCount, recordCount };
    }
    case 'zipfian': {
      // CoreWorkload: new ScrambledZipfianGenerator(insertstart, insertstart + insertcount + expectednewkeys)
      // with no inserts → itemcount = recordCount + 1; a keynum > recordCount − 1 is drawn again.
      const itemcount = recordCount + 1;
      const probs = zipfianRankProbabilities(SCRAMBLED_ZIPFIAN, ZIPF_RANKS);
      const masses = new Map<number, number>();
      let folded = 0;
      let redraw = 0;
      for (let k = 0; k < ZIPF_RANKS; k++) {
        const keynum = Number(fnvhash64(k) % BigInt(itemcount));
        const p = probs[k]!;
        folded += p;
        if (keynum >= recordCount) redraw += p;
        else masses.set(keynum, (masses.get(keynum) ?? 0) + p);
      }
      // ranks beyond ZIPF_RANKS: pseudo-randomly scattered, an even share per key (1/itemcount of it
      // falls on the re-drawn keynum)
      const tail = 1 - folded;
      redraw += tail / itemcount;
      const perKeyTail = tail / itemcount;
      const scale = 1 / (1 - redraw);
      for (const [k, p] of masses) masses.set(k, (p + perKeyTail) * scale);
      const pop = topOf(masses, recordCount);
      return pop;
    }
    case 'latest': {
      // SkewedLatestGenerator: keynum = last − ZipfianGenerator(last + 1 items).nextValue(); with no
      // run-phase inserts last = recordCount − 1, so keynum recordCount − 1 − rank
      // (ZipfianGenerator(lastValue) draws ranks 0..recordCount−2, so keynum 0 is never chosen)
      if (recordCount < 2) return { hot: [], restMass: 1, restKeys: recordCount, recordCount };
      const z = zipfianParams(recordCount - 1);
      const count = Math.min(recordCount - 1, HOT_KEYS);
      const probs = zipfianRankProbabilities(z, count);
      const hot = Array.from(probs, (p, k) => ({ keynum: recordCount - 1 - k, p }));
      const hotMass = hot.reduce((s, h) => s + h.p, 0);
      return { hot, restMass: Math.max(0, 1 - hotMass), restKeys: recordCount - count, recordCount };
    }
  }
}

/** A uniform [0, 1) source; Math.random by default, a seeded one in tests and simulations. */
export type Random = () => number;

/** A seeded PRNG (mulberry32, ../common/prng.ts) for reproducible simulations and emulator runs. */
export function seededRandom(seed: number): Random {
  const prng = new Prng(seed >>> 0);
  return () => prng.next();
}

/** A sampler of keynums as YCSB's key chooser draws them (no run-phase inserts). */
export function keySampler(dist: KeyDistribution, recordCount: number, rnd: Random): () => number {
  switch (dist.type) {
    case 'uniform':
      return () => Math.floor(rnd() * recordCount);
    case 'sequential': {
      let next = 0;
      return () => {
        const k = next;
        next = (next + 1) % recordCount;
        return k;
      };
    }
    case 'hotspot': {
      const hot = Math.floor(recordCount * dist.dataFraction);
      const cold = recordCount - hot;
      return () =>
        rnd() < dist.opFraction && hot > 0 ? Math.floor(rnd() * hot) : hot + Math.floor(rnd() * cold);
    }
    case 'zipfian': {
      const itemcount = BigInt(recordCount + 1);
      return () => {
        for (;;) {
          const k = Number(fnvhash64(zipfianRank(SCRAMBLED_ZIPFIAN, rnd())) % itemcount);
          if (k < recordCount) return k;
        }
      };
    }
    case 'latest': {
      if (recordCount < 2) return () => 0;
      const z = zipfianParams(recordCount - 1);
      return () => recordCount - 1 - Math.min(recordCount - 2, zipfianRank(z, rnd()));
    }
  }
}

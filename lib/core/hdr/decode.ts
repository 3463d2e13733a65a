/**
 * Decoder for HdrHistogram's compressed V2 encoding (what `HistogramLogWriter` of HdrHistogram 2.1.12
 * puts after the last comma of an interval line), written from the format:
 *
 *   compressed:   int32 cookie 0x1c849314 | int32 length of deflate data | zlib(deflate) stream
 *   uncompressed: int32 cookie 0x1c849313 | int32 payload length | int32 normalizingIndexOffset |
 *                 int32 significant digits | int64 lowest discernible value | int64 highest trackable value |
 *                 float64 integer-to-double ratio | payload
 *   payload:      counts in index order, each a ZigZag LEB128 long (1..9 bytes); a negative value -n
 *                 stands for n consecutive zero counts.
 *
 * All integers big-endian. V1 (HdrHistogram 2.1.4, compressed cookie 0x1c849382, base64 `HISTggAA`)
 * and V0 logs are rejected with a message saying how to get V2 logs.
 */
import { inflateSync } from 'node:zlib';
import { HistogramLayout } from './histogram';

const V2_COMPRESSED_BASE = 0x1c849304;
const V2_BASE = 0x1c849303;
const V1_COMPRESSED_BASE = 0x1c849302;
const V0_COMPRESSED_BASE = 0x1c849309;
const HEADER_BYTES = 40;

/** A decoding problem; the log reader turns it into an InputError naming file and line. */
export class HistogramDecodeError extends Error {
  override name = 'HistogramDecodeError';
}

export interface DecodedCounts extends HistogramLayout {
  /** number of (index, count) pairs in `indices`/`counts` (reused buffers: copy or consume at once) */
  n: number;
  indices: Int32Array;
  counts: Float64Array;
  total: number;
}

/** Reusable scratch so decoding thousands of intervals allocates little. */
export class V2Decoder {
  private indices = new Int32Array(1024);
  private counts = new Float64Array(1024);

  /** Decodes one base64 interval histogram into (index, count) pairs. */
  decodeBase64(text: string): DecodedCounts {
    if (text.length === 0) throw new HistogramDecodeError('empty histogram payload');
    if (text.length % 4 !== 0) {
      throw new HistogramDecodeError(
        `base64 payload has ${text.length} characters, not a multiple of 4 (truncated?)`,
      );
    }
    // Node's decoder skips characters outside the alphabet and stops at an inner '=', so a payload is
    // base64 exactly when it decodes to 3 bytes per 4 characters less its padding; it also accepts the
    // URL-safe '-' and '_', which are refused here (a whole-string regex was a tenth of the merge's time).
    const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length !== (text.length / 4) * 3 - pad || text.includes('-') || text.includes('_')) {
      throw new HistogramDecodeError(
        'histogram payload is not base64 (characters outside A-Z a-z 0-9 + / =)',
      );
    }
    return this.decodeCompressed(bytes);
  }

  decodeCompressed(buf: Buffer): DecodedCounts {
    if (buf.length < 8) throw new HistogramDecodeError(`compressed histogram has only ${buf.length} bytes`);
    const cookie = buf.readInt32BE(0);
    const base = cookie & ~0xf0;
    if (base === V1_COMPRESSED_BASE || base === V0_COMPRESSED_BASE) {
      throw new HistogramDecodeError(
        `${base === V1_COMPRESSED_BASE ? 'V1' : 'V0'} histogram encoding (cookie 0x${(cookie >>> 0).toString(16)}), ` +
          'as written by HdrHistogram 2.1.4 (stock YCSB 0.17.0); only V2 is supported: ' +
          'run YCSB with HdrHistogram 2.1.12 on the classpath in place of 2.1.4',
      );
    }
    if (base !== V2_COMPRESSED_BASE) {
      throw new HistogramDecodeError(
        `not a compressed HdrHistogram (cookie 0x${(cookie >>> 0).toString(16)}, expected 0x1c849314)`,
      );
    }
    const length = buf.readInt32BE(4);
    if (length < 0 || 8 + length > buf.length) {
      throw new HistogramDecodeError(
        `compressed histogram declares ${length} bytes of deflate data but only ${buf.length - 8} are present (truncated?)`,
      );
    }
    let raw: Buffer;
    try {
      raw = inflateSync(buf.subarray(8, 8 + length));
    } catch (err) {
      throw new HistogramDecodeError(`deflate data is corrupt: ${(err as Error).message}`);
    }
    return this.decodeUncompressed(raw);
  }

  decodeUncompressed(raw: Buffer): DecodedCounts {
    if (raw.length < HEADER_BYTES) {
      throw new HistogramDecodeError(`histogram header needs ${HEADER_BYTES} bytes, got ${raw.length}`);
    }
    const cookie = raw.readInt32BE(0);
    if ((cookie & ~0xf0) !== V2_BASE || (cookie & 0xf0) >> 4 !== 1) {
      throw new HistogramDecodeError(
        `not a V2 histogram encoding (cookie 0x${(cookie >>> 0).toString(16)}, expected 0x1c849313)`,
      );
    }
    const payloadLength = raw.readInt32BE(4);
    const significantDigits = raw.readInt32BE(12);
    const lowest = Number(raw.readBigInt64BE(16));
    if (payloadLength < 0 || HEADER_BYTES + payloadLength > raw.length) {
      throw new HistogramDecodeError(
        `histogram payload declares ${payloadLength} bytes but only ${raw.length - HEADER_BYTES} are present`,
      );
    }
    if (significantDigits < 0 || significantDigits > 5 || !Number.isSafeInteger(lowest) || lowest < 1) {
      throw new HistogramDecodeError(
        `histogram header is invalid (significant digits ${significantDigits}, lowest discernible value ${lowest})`,
      );
    }
    let pos = HEADER_BYTES;
    const end = HEADER_BYTES + payloadLength;
    let index = 0;
    let n = 0;
    let total = 0;
    while (pos < end) {
      // ZigZag LEB128, up to 9 bytes (the 9th carries 8 bits)
      let b = raw[pos++];
      let value: number;
      if (b < 0x80) {
        // one byte (most counts and short zero runs): ZigZag in integer arithmetic
        const v1 = b & 1 ? -((b + 1) >>> 1) : b >>> 1;
        if (v1 < 0) {
          index -= v1;
          continue;
        }
        if (v1 > 0) {
          if (n === this.indices.length) this.grow();
          this.indices[n] = index;
          this.counts[n] = v1;
          n++;
          total += v1;
        }
        index++;
        continue;
      } else {
        value = b & 0x7f;
        let mul = 128;
        let k = 1;
        for (;;) {
          if (pos >= end) throw new HistogramDecodeError('histogram payload ends inside a LEB128 number');
          b = raw[pos++];
          if (k === 8) {
            value += b * mul;
            break;
          }
          value += (b & 0x7f) * mul;
          if (b < 0x80) break;
          mul *= 128;
          k++;
        }
        if (!Number.isSafeInteger(value)) {
          throw new HistogramDecodeError('histogram count exceeds 2^53 (not supported)');
        }
      }
      // ZigZag: even -> value/2, odd -> -(value+1)/2
      const v = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
      if (v < 0) {
        index += -v;
        continue;
      }
      if (v > 0) {
        if (n === this.indices.length) this.grow();
        this.indices[n] = index;
        this.counts[n] = v;
        n++;
        total += v;
      }
      index++;
    }
    if (index > 0x7fffffff) throw new HistogramDecodeError('histogram counts array is implausibly long');
    return {
      n,
      indices: this.indices,
      counts: this.counts,
      total,
      significantDigits,
      lowestDiscernibleValue: lowest,
    };
  }

  private grow(): void {
    const i = new Int32Array(this.indices.length * 2);
    i.set(this.indices);
    const c = new Float64Array(this.counts.length * 2);
    c.set(this.counts);
    this.indices = i;
    this.counts = c;
  }
}

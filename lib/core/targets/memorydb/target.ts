/** A memorydb target as the spec schema parses it (./spec.ts declares its fields). */
import type { Target } from '../../spec/schema';

export type MemoryDbTarget = Extract<Target, { kind: 'memorydb' }>;

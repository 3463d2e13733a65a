/** A memorydb target as the spec schema parses it (./spec.ts declares its fields). */
export type { MemoryDbTarget } from './spec';

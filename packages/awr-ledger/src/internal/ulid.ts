import { getRandomValues } from "node:crypto";
import { ulid as formatUlid } from "ulid";

/**
 * ULIDs (time + 80 random bits) for ledger ids, from the ulid package with a pooled source of
 * cryptographic randomness: the package's default draws one byte from the OS per character
 * (16 calls per id), which showed in write profiles. Same format and same randomness quality;
 * each byte maps to one of the 32 Crockford characters without bias (256 = 8 × 32).
 */
const pool = new Uint8Array(4096);
let next = pool.length;

function pooledRandom(): number {
  if (next >= pool.length) {
    getRandomValues(pool);
    next = 0;
  }
  return (pool[next++] as number) / 256;
}

export function ulid(): string {
  return formatUlid(undefined, pooledRandom);
}

/** Every row of every `.jsonl` object under a local results directory's table folder (partitions walked). */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export function rowsOf(dir: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl'))
        for (const l of readFileSync(p, 'utf8').split('\n')) if (l.trim()) out.push(JSON.parse(l));
    }
  };
  walk(dir);
  return out;
}

/**
 * Bundles the loader agent into one file for Node 20+ (`npm run build:agent` ->
 * loader/agent/dist/agent.js). The loaders run it as `node agent.js <job> --bundle <dir>`.
 */
import { build } from 'esbuild';
import * as path from 'node:path';

export const AGENT_ENTRY = path.join(__dirname, 'src', 'main.ts');
export const AGENT_OUTFILE = path.join(__dirname, 'dist', 'agent.js');

export async function buildAgent(outfile = AGENT_OUTFILE): Promise<string> {
  await build({
    entryPoints: [AGENT_ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return outfile;
}

if (require.main === module) {
  buildAgent().then(
    (f) => process.stdout.write(`built ${path.relative(process.cwd(), f)}\n`),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}

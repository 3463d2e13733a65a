/**
 * Stand-in loader assets for template tests: a bundle directory and an agent file, so a stack can be
 * synthesized (with bundling on, as for a deploy) without running Maven. Only the template is checked.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export function standInLoaderAssets(): { loaderBundleDir: string; loaderAgentFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-assets-'));
  mkdirSync(path.join(dir, 'bundle', 'lib'), { recursive: true });
  writeFileSync(path.join(dir, 'bundle', 'lib', 'stand-in.txt'), 'template tests only\n');
  writeFileSync(path.join(dir, 'agent.js'), '// template tests only\n');
  return { loaderBundleDir: path.join(dir, 'bundle'), loaderAgentFile: path.join(dir, 'agent.js') };
}

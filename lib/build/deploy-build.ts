/**
 * The one build behind `cdk synth` / `cdk deploy`: the loader bundle (Maven, rebuilt when missing or
 * stale: see staleReason) and the loader agent (esbuild, rebuilt every time: it takes about a second and
 * its output is deterministic, so the asset hash changes only when the agent does). Either is built or
 * synth fails with what to install or run; never a warning followed by a stack whose loaders fail.
 */
import * as path from 'node:path';
import { buildAgent } from '../../loader/agent/build';
import {
  ensureLoaderBuilt,
  LOADER_BUILD_GOALS,
  LoaderBuildError,
  loaderPaths,
  MAVEN_FLAGS,
  staleReason,
} from './maven';

export interface DeployArtifacts {
  /** The directory the loaders unpack (lib/*.jar). */
  bundleDir: string;
  /** The bundled agent (one .js file). */
  agentFile: string;
}

export async function buildDeployArtifacts(
  log: (line: string) => void = () => {},
  options: { root?: string; mvn?: string; agentFile?: string } = {},
): Promise<DeployArtifacts> {
  const paths = loaderPaths(options.root);
  const reason = staleReason(paths);
  if (reason !== null) {
    log(
      `fleetbench: building the loader bundle (${reason}): mvn ${[...MAVEN_FLAGS, '-f', 'loader/pom.xml', ...LOADER_BUILD_GOALS].join(' ')}`,
    );
    try {
      await ensureLoaderBuilt({
        ...(options.root ? { root: options.root } : {}),
        ...(options.mvn ? { mvn: options.mvn } : {}),
      });
    } catch (err) {
      if (err instanceof LoaderBuildError)
        throw new LoaderBuildError(
          `${err.message}\n(fix that, then run \`npm run build:loader\` and synth again)`,
        );
      throw err;
    }
  }
  let agentFile: string;
  try {
    agentFile = await buildAgent(options.agentFile);
  } catch (err) {
    throw new LoaderBuildError(
      `loader agent build failed: ${(err as Error).message}\n(fix that, then run \`npm run build:agent\`)`,
    );
  }
  return { bundleDir: path.dirname(paths.bundleLibDir), agentFile };
}

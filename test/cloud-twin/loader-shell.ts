/**
 * A Run Command script as the twin's loader runs it. Scripts WaitReady sends (the CQL schema) begin with the
 * loader document's preparation (lib/constructs/loader-fleet.ts `prepareCommands`): install Java 17 and
 * Node when missing, then fetch and unpack the loader bundle into /opt/fleetbench. The twin's loader is this
 * machine: the shell options, the region exports and the Java 17 check run as they are (this machine has
 * Java 17, so the check installs nothing); the Node install, the /opt/fleetbench directory and the bundle
 * download are left out, and the bundle directory is the staged asset that download would unpack (as the
 * SSM twin does for the agent's own command). Everything after the preparation runs unchanged.
 */
export function onTheLoader(
  commands: string[],
  o: { prepare: string[]; bundleDir: string; stagedBundle: string },
): string[] {
  const at = o.prepare.length ? indexOfBlock(commands, o.prepare) : -1;
  if (at < 0) return commands;
  const kept = o.prepare.filter((l) => /^set /.test(l) || /^export /.test(l) || /java -version/.test(l));
  const rest = commands.slice(at + o.prepare.length).map((l) => l.split(o.bundleDir).join(o.stagedBundle));
  return [...commands.slice(0, at), ...kept, ...rest];
}

function indexOfBlock(lines: string[], block: string[]): number {
  for (let i = 0; i + block.length <= lines.length; i++) {
    if (block.every((b, j) => lines[i + j] === b)) return i;
  }
  return -1;
}

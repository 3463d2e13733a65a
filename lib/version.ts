/** fleetbench's version (package.json), stamped on the stack as an output and checked by `fleetbench doctor`. */
import pkg from '../package.json';

export const FLEETBENCH_VERSION: string = pkg.version;

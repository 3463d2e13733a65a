#!/usr/bin/env node
'use strict';
// Thin launcher: registers tsx so the TypeScript CLI runs without a build step.

// Node 20 (end of life April 2026) still runs fleetbench: where the AWS SDK would print its eight-line
// NodeVersionSupportWarning, one short line instead
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : warning && warning.message;
  if (typeof text === 'string' && text.startsWith('NodeVersionSupportWarning')) {
    process.stderr.write(`fleetbench: Node ${process.version} is past its end of life: use Node 22\n`);
    return;
  }
  return emitWarning.call(process, warning, ...rest);
};

require('tsx/cjs');
require('../lib/cli/main.ts').main(process.argv.slice(2));

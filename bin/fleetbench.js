#!/usr/bin/env node
'use strict';
// Launcher: runs the CLI bundle (dist/cli/main.js, bin/build-cli.js), building it first when it is missing or
// older than its sources; without esbuild, the TypeScript sources through tsx.

// Node 20 (end of life April 2026) still runs fleetbench: where the AWS SDK would print its eight-line
// NodeVersionSupportWarning, one short line instead
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : warning && warning.message;
  if (typeof text === 'string' && text.startsWith('NodeVersionSupportWarning')) {
    process.stderr.write(`fleetbench: Node ${process.version} is past its end of life: use Node 22\n`);
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'; // said once: not again by children
    return;
  }
  return emitWarning.call(process, warning, ...rest);
};

const fs = require('node:fs');
const path = require('node:path');
const bundle = require('./build-cli.js');

async function cli() {
  try {
    await bundle.build(); // a no-op when the bundle is fresh
  } catch (err) {
    process.stderr.write(
      `fleetbench: cannot build the CLI bundle (${err.message}): running the TypeScript sources\n`,
    );
    require('tsx/cjs');
    return require('../lib/cli/main.ts');
  }
  return require(path.join(bundle.OUT_DIR, 'main.js'));
}

cli().then(({ main }) => {
  let commands;
  try {
    commands = JSON.parse(fs.readFileSync(path.join(bundle.OUT_DIR, 'commands.json'), 'utf8'));
  } catch {
    commands = undefined; // help then loads every command
  }
  return main(process.argv.slice(2), { commands });
});

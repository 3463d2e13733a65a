#!/usr/bin/env node
'use strict';
// Thin launcher: registers tsx so the TypeScript CLI runs without a build step.
require('tsx/cjs');
require('../lib/cli/main.ts').main(process.argv.slice(2));

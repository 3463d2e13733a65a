#!/usr/bin/env node
'use strict';
// The package registry this project is built against serves native optional packages (duckdb,
// unrs-resolver, ...) for some platforms only, so `npm install` writes a package-lock.json whose
// entries name optional dependencies it could not resolve, and `npm ci` then refuses the lock.
// This drops those unresolvable names from the lock. Run `npm run lock:fix` after `npm install`.
const fs = require('node:fs');
const path = require('node:path');
const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const have = new Set(Object.keys(lock.packages).map((k) => k.replace(/^.*node_modules\//, '')));
const removed = new Set();
for (const entry of Object.values(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const name of Object.keys(entry.optionalDependencies)) {
    if (!have.has(name)) {
      delete entry.optionalDependencies[name];
      removed.add(name);
    }
  }
  if (Object.keys(entry.optionalDependencies).length === 0) delete entry.optionalDependencies;
}
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`package-lock.json: dropped ${removed.size} unresolvable optional package(s)\n`);

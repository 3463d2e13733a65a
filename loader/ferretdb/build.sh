#!/usr/bin/env bash
# Builds FerretDB 1.x (a MongoDB wire-protocol server on SQLite, Apache-2.0) from its Go module, for the MongoDB
# binding's tests (loader/ycsb-binding/src/test/java/dev/fleetbench/ycsb/mongo/). Only the Go module proxy is
# used; nothing is downloaded at test time. The binary is cached outside the work tree and rebuilt only when
# missing, so later runs cost nothing.
#
#   bash loader/ferretdb/build.sh            # prints the binary's path
#
# The module is built in a writable copy of the module cache's source (`go install pkg@version` stops on the
# proxy's deprecation lookup here); build/version/version.txt is the one file FerretDB's own build generates.
# -tags ferretdb_no_postgresql leaves the PostgreSQL backend out (the tests use SQLite).
set -euo pipefail

VERSION=v1.24.0
OUT_DIR="$HOME/.cache/fleetbench/ferretdb-$VERSION"  # = fleetbench.ferretdb in loader/ycsb-binding/pom.xml
BIN="$OUT_DIR/ferretdb"

# (the output is captured first: with pipefail, `grep -q` closing the pipe early would fail the check)
if [ -x "$BIN" ] && [[ "$("$BIN" --version 2>/dev/null)" == *"version: $VERSION"* ]]; then
  echo "$BIN"
  exit 0
fi
command -v go >/dev/null || { echo "ferretdb/build.sh: go is not installed (needed to build FerretDB $VERSION)" >&2; exit 1; }

export GOFLAGS=-buildvcs=false GOTOOLCHAIN=local CGO_ENABLED=0
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
start=$(date +%s)
src=$(go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
echo "$VERSION" > "$work/src/build/version/version.txt"
mkdir -p "$OUT_DIR"
(cd "$work/src" && go build -trimpath -tags ferretdb_no_postgresql -o "$BIN.tmp" ./cmd/ferretdb)
mv "$BIN.tmp" "$BIN"
echo "ferretdb/build.sh: built FerretDB $VERSION in $(($(date +%s) - start)) s" >&2
echo "$BIN"

#!/usr/bin/env bash
# `npm test`'s pretest: brings what the tests need, and is quick (well under a second) when all is there.
#   - Python tools (test/setup/requirements.txt: moto server, cfn-lint, Apache Otava 0.8.0) into the project's
#     .venv; jest.config.js puts .venv/bin first on the tests' PATH
#   - Debian packages: chromium (renders the HTML report), redis-server + redis-cli (the Redis binding's tests),
#     openssl (test certificates), python3-venv when python3 cannot make the .venv; installed with apt-get when
#     running as root, else one line naming the command
#   - FerretDB (the MongoDB binding's tests): built once from its Go module by loader/ferretdb/build.sh
# Run it by hand: bash test/setup/ensure-tools.sh   (FLEETBENCH_SETUP_ONLY=python|debian|ferretdb runs one part)
set -euo pipefail
cd "$(dirname "$0")/../.."

only=${FLEETBENCH_SETUP_ONLY:-all}
venv=${FLEETBENCH_VENV:-.venv} # jest.config.js puts .venv/bin on the tests' PATH
t0=$(date +%s)
did=()

python_tools() {
  local req=test/setup/requirements.txt stamp=$venv/.fleetbench-requirements
  if [ -x "$venv/bin/python" ] && [ -x "$venv/bin/moto_server" ] && [ -x "$venv/bin/cfn-lint" ] \
      && cmp -s "$req" "$stamp"; then
    return 0
  fi
  local py=${PYTHON3:-python3}
  command -v "$py" >/dev/null || { echo "test setup: python3 is missing: sudo apt-get install -y python3 python3-venv" >&2; exit 1; }
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
  did+=("Python tools in $venv")
}

debian_packages() {
  # command → Debian package
  local missing=()
  [ -x "${FLEETBENCH_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
  { command -v redis-server && command -v redis-cli; } >/dev/null 2>&1 || missing+=(redis-server)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  # Debian's python3 makes virtual environments only with python3-venv (ensurepip)
  if [ ! -x "$venv/bin/python" ] && ! "${PYTHON3:-python3}" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing+=(python3-venv)
  fi
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${FLEETBENCH_SETUP_UID:-$(id -u)}" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    did+=("${missing[*]} from apt-get")
  else
    echo "test setup: missing Debian packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

ferretdb() {
  local before
  before=$(date +%s)
  bash loader/ferretdb/build.sh >/dev/null
  [ $(($(date +%s) - before)) -lt 2 ] || did+=("FerretDB")
}

case $only in
  all) debian_packages; python_tools; ferretdb ;;
  python) python_tools ;;
  debian) debian_packages ;;
  ferretdb) ferretdb ;;
  *) echo "test setup: FLEETBENCH_SETUP_ONLY is python, debian or ferretdb, not $only" >&2; exit 2 ;;
esac
if [ ${#did[@]} -gt 0 ]; then
  echo "test setup: installed ${did[*]} in $(($(date +%s) - t0)) s" >&2
fi

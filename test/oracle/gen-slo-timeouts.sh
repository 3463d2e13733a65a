#!/usr/bin/env bash
# Regenerates test/fixtures/ycsb/slo-timeouts (the SLO verdict's worked example, test/unit/search/verdict.test.ts):
# the interval logs written by HdrHistogram 2.1.12's HistogramLogWriter (test/oracle/slo/GenSloTimeouts.java),
# and a manifest and YCSB summary to match (100,000 reads: 99,500 OK, 500 failed).
#
#   bash test/oracle/gen-slo-timeouts.sh [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../fixtures/ycsb/slo-timeouts}"
mvn -q -B --strict-checksums -f "$here/pom.xml" package
proc="$out/loader-0/proc-0"
rm -rf "$out"
mkdir -p "$proc"
java -cp "$here/target/lib/*" "$here/slo/GenSloTimeouts.java" "$proc"
cat > "$proc/manifest.json" <<JSON
{"loader":0,"process":0,"exitCode":0,"startMs":1795400000000,"endMs":1795400011000,"host":"fixture-loader-0","phase":"run"}
JSON
cat > "$proc/summary.json" <<JSON
[ {"metric" : "OVERALL", "measurement" : "RunTime(ms)", "value" : 11000},
  {"metric" : "READ", "measurement" : "Operations", "value" : 99500},
  {"metric" : "READ", "measurement" : "Return=OK", "value" : 99500},
  {"metric" : "READ", "measurement" : "Return=ERROR", "value" : 500},
  {"metric" : "READ-FAILED", "measurement" : "Operations", "value" : 500} ]
JSON

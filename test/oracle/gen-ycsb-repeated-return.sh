#!/usr/bin/env bash
# Regenerates test/fixtures/ycsb/repeated-return: the end-of-run summaries of REAL YCSB 0.17.0
# (site.ycsb.Client), once with the JSON array exporter (summary.json) and once with the text exporter
# (summary.txt), where one operation has two `Return=` lines with the same status name.
# Why YCSB repeats them: it counts statuses per Status object, Status.equals compares name AND description,
# and the exporter prints the name only
# (https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/measurements/OneMeasurement.java).
# Binding: dev.fleetbench.oracle.FlakyDB with flakydb.twinstatus=true, which returns
# Status.SERVICE_UNAVAILABLE and its own SERVICE_UNAVAILABLE ("The node is restarting.").
#
#   bash test/oracle/gen-ycsb-repeated-return.sh [OUT_DIR] [SECONDS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../fixtures/ycsb/repeated-return}"
secs="${2:-3}"
mvn -q -B --strict-checksums -f "$here/pom.xml" package
cp_="$here/target/classes:$here/target/lib/*"
rm -rf "$out"
mkdir -p "$out"
for form in json txt; do
  if [ "$form" = json ]; then
    exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter
  else
    exporter=site.ycsb.measurements.exporter.TextMeasurementsExporter
  fi
  java -Xmx96m -XX:+UseSerialGC -cp "$cp_" site.ycsb.Client -t \
    -db dev.fleetbench.oracle.FlakyDB -p flakydb.twinstatus=true \
    -threads 2 -target 400 \
    -p workload=site.ycsb.workloads.CoreWorkload \
    -p recordcount=1000 -p operationcount=100000000 -p maxexecutiontime="$secs" \
    -p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=uniform \
    -p basicdb.simulatedelay=2 -p basicdb.randomizedelay=true -p basicdb.count=false \
    -p measurement.interval=both \
    -p exporter="$exporter" -p exportfile="$out/summary.$form" \
    > /dev/null 2> "$out/stderr-$form.log"
done
rm -f "$out"/stderr-*.log
grep -c 'Return=SERVICE_UNAVAILABLE' "$out/summary.txt"

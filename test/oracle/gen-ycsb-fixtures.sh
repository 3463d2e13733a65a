#!/usr/bin/env bash
# Regenerates test/fixtures/ycsb/fleet-small: REAL YCSB 0.17.0 (site.ycsb.Client, HdrHistogram 2.1.12)
# run as 2 loaders x 2 processes at once, laid out as the loader agent does
# (loader-<i>/proc-<j>/{*.hdr,summary.json|summary.txt,stderr.log,manifest.json}).
# Binding: dev.fleetbench.oracle.FlakyDB (BasicDB's simulated delay plus failures and throttled
# attempts). measurement.interval=both, a target, status every second -> ~8 intervals per log.
# loader-1/proc-1 uses the text exporter (summary.txt) so both summary forms are real output.
#
#   bash test/oracle/gen-ycsb-fixtures.sh [OUT_DIR] [SECONDS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../fixtures/ycsb/fleet-small}"
secs="${2:-8}"
mvn -q -B --strict-checksums -f "$here/pom.xml" package
cp_="$here/target/classes:$here/target/lib/*"
rm -rf "$out"
pids=()
for l in 0 1; do
  for p in 0 1; do
    d="$out/loader-$l/proc-$p"
    mkdir -p "$d"
    if [ "$l$p" = "11" ]; then
      exporter=site.ycsb.measurements.exporter.TextMeasurementsExporter
      summary="$d/summary.txt"
    else
      exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter
      summary="$d/summary.json"
    fi
    (
      start=$(date +%s%3N)
      set +e
      java -Xmx96m -XX:+UseSerialGC -cp "$cp_" site.ycsb.Client -t -s \
        -db dev.fleetbench.oracle.FlakyDB \
        -threads 4 -target 300 \
        -p workload=site.ycsb.workloads.CoreWorkload \
        -p recordcount=1000 -p operationcount=100000000 -p maxexecutiontime="$secs" \
        -p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=zipfian \
        -p basicdb.simulatedelay=4 -p basicdb.randomizedelay=true -p basicdb.count=false \
        -p status.interval=1 -p measurement.interval=both \
        -p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$d/" \
        -p hdrhistogram.percentiles=50,90,95,99,99.9,99.99 \
        -p exporter="$exporter" -p exportfile="$summary" \
        > "$d/stdout.log" 2> "$d/stderr.log"
      rc=$?
      end=$(date +%s%3N)
      printf '{"loader":%d,"process":%d,"exitCode":%d,"startMs":%d,"endMs":%d,"host":"%s","phase":"run"}\n' \
        "$l" "$p" "$rc" "$start" "$end" "fixture-loader-$l" > "$d/manifest.json"
      rm -f "$d/stdout.log"
    ) &
    pids+=($!)
  done
done
for pid in "${pids[@]}"; do wait "$pid"; done
# keep the fixture small: status lines are not needed beyond the first and last few
for f in "$out"/loader-*/proc-*/stderr.log; do
  { head -n 5 "$f"; echo '...'; tail -n 3 "$f"; } > "$f.tmp" && mv "$f.tmp" "$f"
done
du -sh "$out"

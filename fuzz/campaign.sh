#!/bin/sh
# One fuzzing campaign: each target in turn for SECONDS (default 600), one
# process at a time, continuing past crashes, timeouts and OOMs (fork mode)
# so that a known slow input does not end the run. Corpora go to
# corpus/TARGET, findings to artifacts/TARGET (neither is committed); the
# log of each run to LOGS/TARGET.log. Build first:
#   cargo +nightly fuzz build -a -s none
# Usage: sh campaign.sh [SECONDS] [TARGET...]
set -u
cd "$(dirname "$0")"
secs=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-dmclock fio mqsim report report_values scenario seastar}
logs=${LOGS:-/tmp/sluice-fuzz-logs}
bin=target/x86_64-unknown-linux-gnu/release
mkdir -p "$logs"
for t in $targets; do
    mkdir -p "corpus/$t" "artifacts/$t"
    seeds=""
    [ -d "seeds/$t" ] && seeds="seeds/$t"
    case $t in
        dmclock) seeds="$seeds ../data/import" ;;
        seastar) seeds="$seeds ../data/import" ;;
        fio) seeds="$seeds ../scenarios/fio $(ls -d ../../shared/data/fio-examples 2>/dev/null)" ;;
        scenario) seeds="$seeds ../scenarios ../scenarios/repro ../scenarios/run" ;;
        traces) seeds="$seeds ../data/traces" ;;
    esac
    dict=""
    [ -f "dicts/$t.dict" ] && dict="-dict=dicts/$t.dict"
    echo "== $t $(date -u +%H:%M:%S)" >&2
    "$bin/$t" -fork=1 -ignore_timeouts=1 -ignore_crashes=1 -ignore_ooms=1 \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="artifacts/$t/" $dict \
        "corpus/$t" $seeds > "$logs/$t.log" 2>&1
    echo "== $t done rc=$? $(date -u +%H:%M:%S)" >&2
done

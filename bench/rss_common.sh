# SPDX-License-Identifier: MIT
# rss_common.sh: sourced by the *_rss.sh benchmarks. Checks the CLI, the
# stream generator and GNU time are there, makes a scratch dir removed on
# exit, and gives `rss_run LABEL BYTES CMD...`: runs CMD under GNU time and
# prints MB/s of BYTES input and peak RSS (the kernel's maxrss, KiB → MiB).
#
#   usage from a script:  source "$(dirname "$0")/rss_common.sh" NAME BUILD_DIR
#   sets: cli, gen, dir
rss_name=$1
build=$2
cli=$build/tools/mabutrace/mabutrace
gen=$build/bench/mabutrace_stream_gen
for f in "$cli" "$gen" /usr/bin/time; do
  [ -x "$f" ] || { echo "$rss_name: $f not found (build the bench targets; apt-get install time)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

rss_run() {  # label, input bytes, command...
  local label=$1 bytes=$2
  shift 2
  /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  read -r secs kib <"$dir/time"
  awk -v l="$label" -v b="$bytes" -v s="$secs" -v k="$kib" \
    'BEGIN { printf "%-30s %8.1f MB/s of input  peak RSS %7.1f MiB  (%.2f s)\n", l, b / 1e6 / s, k / 1024, s }'
}

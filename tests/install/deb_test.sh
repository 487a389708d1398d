#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deb_test.sh SRC BUILD WORK CXX: `make package`'s Debian package, checked as a
# user would meet it: cpack builds mabutrace_<version>_<arch>.deb from BUILD;
# its file list and Depends are inspected (dpkg-deb -c / -I); dpkg installs it
# into a scratch root (--root: no chroot, the host's libraries stand in for
# the dependencies); the installed CLI prints its version; a program built
# against the installed CMake package records a trace; the installed CLI
# converts that program's binary stream to a JSON trace that is checked.
set -euo pipefail
src=$1 build=$2 work=$3 cxx=$4
rm -rf "$work"
mkdir -p "$work"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log"
version=$(sed -n 's/^project(mabutrace VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb=$work/pkg/mabutrace_${version}_$(dpkg --print-architecture).deb
if [ ! -f "$deb" ]; then
  echo "deb_test: cpack wrote no $deb:" >&2
  ls "$work/pkg" >&2
  exit 1
fi
echo "deb_test: $deb ($(stat -c %s "$deb") bytes)"

dpkg-deb -c "$deb" | awk '{print $NF}' >"$work/contents"
for f in ./usr/bin/mabutrace ./usr/include/mabutrace/mabutrace.h ./usr/include/mabutrace/version.h \
         ./usr/lib/libmabutrace.a ./usr/lib/libmabutrace_core.a \
         ./usr/lib/cmake/mabutrace/mabutraceConfig.cmake ./usr/lib/cmake/mabutrace/mabutraceTargets.cmake \
         ./usr/lib/pkgconfig/mabutrace.pc ./usr/share/man/man1/mabutrace.1.gz \
         ./usr/share/doc/mabutrace/LICENSE ./usr/share/doc/mabutrace/docs/architecture.md; do
  grep -qxF "$f" "$work/contents" || { echo "deb_test: $deb lacks $f" >&2; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
for d in libc6 libstdc++6 libelf1 pkg-config libcpp-httplib-dev; do
  case ", $depends," in
    *", $d,"* | *", $d ("*) ;;
    *) echo "deb_test: Depends lacks $d" >&2; exit 1 ;;
  esac
done

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --log=/dev/null -i "$deb" >"$work/dpkg.log"
status=$(dpkg --root="$root" -s mabutrace)  # read whole: grep -q would cut a pipe short (pipefail)
grep -q '^Status: install ok installed' <<<"$status"
cli=$root/usr/bin/mabutrace
"$cli" --version | tee "$work/version"
grep -qx "mabutrace $version" "$work/version" || { echo "deb_test: --version does not say $version" >&2; exit 1; }

"$src/tests/install/consumer_test.sh" find_package "$src" "$work/consumer" "$root/usr" "$cxx"
"$cli" convert "$work/consumer/trace.stream" -o "$work/converted.json"
python3 "$src/tests/install/check_trace.py" "$work/converted.json"

#!/bin/sh
# Builds the Debian package of pttd from built binaries (`make deb` passes the release ones):
#   Docs/packaging/make-deb.sh BIN_DIR OUT_DIR VERSION
# The package holds pttd, pttctl and ptt in /usr/bin, the systemd unit, a default /etc/pttd/config.json
# (a conffile), the docs, the monitoring files and each command's --help as text, and the maintainer scripts
# that create the pttd user and /var/lib/pttd.
# The programs are stripped; their debug information goes to a second package beside it, pttd-dbgsym
# (/usr/lib/debug/.build-id/XX/REST.debug, where gdb and the Swift backtracer look, and each program's
# .gnu_debuglink names its file). It prints pttd-dbgsym's path, then the package's (the last line).
set -eu
bin=$1; out=$2; version=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
arch=$(dpkg --print-architecture)
for tool in objcopy strip readelf; do
    command -v $tool >/dev/null 2>&1 || { echo "make-deb.sh: $tool is missing (Debian package binutils)" >&2; exit 1; }
done
stage=$(mktemp -d)
debug=$(mktemp -d)
trap 'rm -rf "$stage" "$debug"' EXIT

install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/lib/systemd/system" "$stage/etc/pttd" \
    "$stage/usr/share/doc/pttd/monitoring" "$stage/usr/share/doc/pttd/help" "$debug/DEBIAN"
build_ids=""
for program in pttd pttctl ptt; do
    install -m 0755 "$bin/$program" "$stage/usr/bin/$program"
    "$bin/$program" --help > "$stage/usr/share/doc/pttd/help/$program.txt" 2>&1 || true
    # What dh_strip does: the debug sections (compressed) to a file named by the build-id, the program
    # stripped of them and of its symbol table, then linked to that file (name and CRC).
    id=$(readelf --notes "$bin/$program" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
    [ -n "$id" ] || { echo "make-deb.sh: $bin/$program has no build-id" >&2; exit 1; }
    file="$debug/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
    install -d "$(dirname "$file")"
    objcopy --only-keep-debug --compress-debug-sections=zlib "$stage/usr/bin/$program" "$file"
    chmod 0644 "$file"
    strip --strip-all --remove-section=.comment "$stage/usr/bin/$program"
    objcopy --add-gnu-debuglink="$file" "$stage/usr/bin/$program"
    build_ids="$build_ids $id"
done
for command in "user add" "user link" "backup" "reload" "cert" "channel" "history" "export" "wakes" "announce"; do
    "$bin/pttctl" $command --help > "$stage/usr/share/doc/pttd/help/pttctl-$(echo "$command" | tr ' ' '-').txt" 2>&1 || true
done
for command in talk listen monitor floor; do
    "$bin/ptt" $command --help > "$stage/usr/share/doc/pttd/help/ptt-$command.txt" 2>&1 || true
done
install -m 0644 "$here/pttd.service" "$stage/lib/systemd/system/pttd.service"
install -m 0644 "$here/config.json" "$stage/etc/pttd/config.json"
for doc in README.md; do install -m 0644 "$root/$doc" "$stage/usr/share/doc/pttd/$doc"; done
for doc in OPERATIONS.md PROTOCOL.md ARCHITECTURE.md BENCHMARKS.md; do
    install -m 0644 "$root/Docs/$doc" "$stage/usr/share/doc/pttd/$doc"
done
for file in prometheus.yml pttd-alerts.yml pttd-alerts.test.yml grafana-pttd.json; do
    install -m 0644 "$root/Docs/monitoring/$file" "$stage/usr/share/doc/pttd/monitoring/$file"
done
for script in postinst prerm postrm; do install -m 0755 "$here/$script" "$stage/DEBIAN/$script"; done
echo /etc/pttd/config.json > "$stage/DEBIAN/conffiles"
size=$(du -sk "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: pttd
Version: $version
Architecture: $arch
Maintainer: pttrelay <pttrelay@localhost>
Installed-Size: $size
Depends: adduser, libc6, libopus0, libogg0, libssl3, libsqlite3-0
Section: net
Priority: optional
Homepage: file:///usr/share/doc/pttd/README.md
Description: Push-To-Talk channel relay server for networks without internet
 pttd keeps walkie-talkie channels for iOS PushToTalk apps, browsers and the ptt
 command: floor control, an SRTP audio relay, wakes over Local Push or APNs,
 recordings, an admin API with Prometheus metrics, and an operator console.
 pttctl manages a running pttd; ptt talks, listens and monitors.
CONTROL
cat > "$debug/DEBIAN/control" <<CONTROL
Package: pttd-dbgsym
Source: pttd
Version: $version
Architecture: $arch
Maintainer: pttrelay <pttrelay@localhost>
Installed-Size: $(du -sk "$debug" | cut -f1)
Depends: pttd (= $version)
Section: debug
Priority: optional
Auto-Built-Package: debug-symbols
Build-Ids:$build_ids
Description: debug symbols for pttd
 The debug information of pttd, pttctl and ptt, for gdb and symbolicated backtraces.
CONTROL
mkdir -p "$out"
deb="$out/pttd_${version}_${arch}.deb"
dbgsym="$out/pttd-dbgsym_${version}_${arch}.deb"
# PTT_DEB_COMPRESSION=none makes a test package quickly (the debug files are large); xz by default.
dpkg-deb --root-owner-group -Z"${PTT_DEB_COMPRESSION:-xz}" --build "$debug" "$dbgsym" >/dev/null
dpkg-deb --root-owner-group -Z"${PTT_DEB_COMPRESSION:-xz}" --build "$stage" "$deb" >/dev/null
echo "$dbgsym"
echo "$deb"

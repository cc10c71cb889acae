#!/bin/sh
# The built man pages carry the project's version and the release date
# (scripts/release-date.sh: SOURCE_DATE_EPOCH, else debian/changelog's
# newest entry), not a placeholder date, and render without a warning the
# way lintian renders them (man --warnings, 80 columns: "table wider than
# line width" included), and with groff -ww.
set -eu
: "${SRCROOT:?}" "${BUILDDIR:?}" "${VERSION:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
want_date=$(sh "$SRCROOT/scripts/release-date.sh" "$SRCROOT")
[ "$(SOURCE_DATE_EPOCH=1700000000 sh "$SRCROOT/scripts/release-date.sh" "$SRCROOT")" = 2023-11-14 ] ||
	fail "SOURCE_DATE_EPOCH is not the date"
for m in nettune.1 nettune-profile.5; do
	f="$BUILDDIR/man/$m"
	[ -f "$f" ] || fail "$m is not built ($f)"
	th=$(grep -m1 '^\.TH ' "$f")
	case "$th" in
	*" $want_date \"nettune $VERSION\" "*) ;;
	*) fail "$m: $th: want date $want_date and version $VERSION" ;;
	esac
	! grep -q '2025-01-01\|@MAN_DATE@\|@VERSION@' "$f" || fail "$m: placeholder date or token left"
	w=$(groff -man -Tutf8 -ww -z -t "$f" 2>&1) || true
	[ -z "$w" ] || fail "$m: groff: $w"
	command -v man >/dev/null || fail "man missing (scripts/deps.sh test installs man-db)"
	w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null) || true
	[ -z "$w" ] || fail "$m: man --warnings (as lintian): $w"
done
echo "ok: man pages dated $want_date, version $VERSION, no warnings"

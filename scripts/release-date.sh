#!/bin/sh
# The date of this release, YYYY-MM-DD, for the man pages' .TH line:
# SOURCE_DATE_EPOCH when set (reproducible builds; dpkg-buildpackage sets it
# from debian/changelog), else the date of debian/changelog's newest entry
# (the release), else the date of the last commit.
set -eu
src=${1:-$(dirname "$0")/..}
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d
	exit
fi
when=$(sed -n 's/^ -- .*>  \(.*\)$/\1/p' "$src/debian/changelog" 2>/dev/null | head -n 1)
if [ -n "$when" ]; then
	date -u -d "$when" +%Y-%m-%d
	exit
fi
git -C "$src" log -1 --format=%cd --date=format:%Y-%m-%d

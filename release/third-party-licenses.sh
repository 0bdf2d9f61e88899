#!/bin/sh
# Print the licence texts of every module compiled into git-kb for the
# release targets, plus the embedded dictionary's, for the release archives
# (Apache-2.0, BSD and MIT all ask that binaries carry them).
#
#   release/third-party-licenses.sh > THIRD_PARTY_LICENSES.txt
#
# Reads the module cache only (run `go mod download` first); no network.
set -eu
cd "$(dirname "$0")/.."

mods=$(for t in linux/amd64 darwin/arm64 windows/amd64; do
	GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go list -deps -tags ne \
		-f '{{with .Module}}{{if not .Main}}{{.Path}}@{{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/git-kb
done | sort -u)

echo "Third-party software in git-kb"
echo "=============================="
echo
echo "git-kb is built with the Go standard library (BSD-3-Clause, https://go.dev/LICENSE)"
echo "and the modules below. Each module's licence files follow, verbatim."
echo
echo "$mods" | while read -r mod dir; do
	files=$(find "$dir" -maxdepth 1 -type f \( -iname 'LICEN[CS]E*' -o -iname 'COPYING*' -o -iname 'NOTICE*' \) | sort)
	if [ -z "$files" ]; then
		echo "release/third-party-licenses.sh: $mod has no licence file" >&2
		exit 1
	fi
	for f in $files; do
		echo "--------------------------------------------------------------------------------"
		echo "$mod: $(basename "$f")"
		echo "--------------------------------------------------------------------------------"
		cat "$f"
		echo
	done
done
echo "--------------------------------------------------------------------------------"
echo "Embedded dictionary: segment/zhdict.txt"
echo "--------------------------------------------------------------------------------"
cat segment/zhdict.txt.LICENSE

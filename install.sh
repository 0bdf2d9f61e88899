#!/bin/sh
# Build git-kb and install it as a git subcommand (`git kb`).
#
#   ./install.sh                 # to /usr/local/bin as root, else ~/.local/bin
#   PREFIX=/opt/git-kb ./install.sh
#
# Needs Go 1.24+ and git. Nothing else: the Chinese dictionary is built in.
set -eu
cd "$(dirname "$0")"

if [ -z "${PREFIX:-}" ]; then
	if [ "$(id -u)" = 0 ]; then PREFIX=/usr/local; else PREFIX="$HOME/.local"; fi
fi
BIN="$PREFIX/bin"

if ! command -v go >/dev/null 2>&1; then
	if [ -x /usr/local/go/bin/go ]; then
		PATH="/usr/local/go/bin:$PATH"
	else
		echo "install.sh: Go 1.24 or newer is needed to build git-kb (https://go.dev/dl/)" >&2
		exit 1
	fi
fi
command -v git >/dev/null 2>&1 || { echo "install.sh: git is needed" >&2; exit 1; }

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
commit=$(git rev-parse HEAD 2>/dev/null || true)
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
exe=git-kb$(go env GOEXE) # git-kb.exe on Windows (Git Bash), for git to find
mkdir -p "$BIN"
# -tags ne: leave out gse's own embedded dictionaries (36 MB, incl. Japanese);
# git-kb embeds the one table it uses (segment/zhdict.txt).
CGO_ENABLED=0 go build -trimpath -tags ne -ldflags "-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date" -o "$BIN/$exe.tmp" ./cmd/git-kb
mv -f "$BIN/$exe.tmp" "$BIN/$exe"
echo "installed git-kb $version to $BIN/$exe"

case ":$PATH:" in
*":$BIN:"*) echo "try: git kb --help" ;;
*)
	echo "$BIN is not on your PATH; add it, e.g. in ~/.profile:"
	echo "  export PATH=\"$BIN:\$PATH\""
	;;
esac

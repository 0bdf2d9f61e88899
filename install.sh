#!/bin/sh
# Build git-kb and install it as a git subcommand (`git kb`).
#
#   ./install.sh                 # to /usr/local/bin as root, else ~/.local/bin
#   PREFIX=/opt/git-kb ./install.sh
#
# Needs Go 1.26.8+ (go.mod) and git. Nothing else: the Chinese dictionary is built in.
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
		echo "install.sh: Go 1.26.8 or newer is needed to build git-kb (https://go.dev/dl/)" >&2
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

# Man pages, written by the binary from its own command definitions, where
# man looks for this prefix (as git-lfs does): `git kb --help` and
# `git help kb` run `man git-kb`.
MAN="$PREFIX/share/man/man1"
mkdir -p "$MAN"
"$BIN/git-kb" man-pages "$MAN" >/dev/null
echo "installed man pages to $MAN (git-kb.1, git-kb-COMMAND.1)"

case ":$PATH:" in
*":$BIN:"*) echo "try: git kb --help" ;;
*)
	echo "$BIN is not on your PATH; add it, e.g. in ~/.profile:"
	echo "  export PATH=\"$BIN:\$PATH\""
	;;
esac
if command -v man >/dev/null 2>&1; then
	# man-db finds PREFIX/share/man for a PREFIX/bin on PATH; say so if not.
	if [ "$(PATH="$BIN:$PATH" man -w git-kb 2>/dev/null)" != "$MAN/git-kb.1" ]; then
		echo "$PREFIX/share/man is not on your man path; add it, e.g. in ~/.profile:"
		echo "  export MANPATH=\"$PREFIX/share/man:\$(manpath 2>/dev/null)\""
	fi
else
	echo "man is not installed: git kb help COMMAND shows the same help"
fi

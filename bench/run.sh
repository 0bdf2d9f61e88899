#!/usr/bin/env bash
# Builds git-kb as install.sh does and runs bench.py on the docs corpus and a
# committed copy of Go's source. Prints one JSON line per corpus.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared=${GITKB_SHARED:-$root/../shared}
bin=$(mktemp -d)/git-kb
(cd "$root" && CGO_ENABLED=0 go build -trimpath -tags ne -o "$bin" ./cmd/git-kb)
args=(--kb "$bin" --queries-dir "$shared/eval" --gosrc "$(go env GOROOT)/src")
[ -f "$shared/corpora/tidb-docs-cn.bundle" ] && args+=(--docs "$shared/corpora/tidb-docs-cn.bundle")
python3 "$here/bench.py" "${args[@]}"

#!/usr/bin/env bash
# Org search on a three-node Weaviate cluster on loopback (issue 17): the
# collection replicated twice (git kb publish --replicas 2), one node
# stopped, and git kb search --org must answer every query (it says how
# many gave the same first result as with three nodes: with a node down
# the document frequencies cannot be counted, and the ranking is the
# candidates' own). A bench script rather than a go test:
# three nodes take a minute or more to form a cluster on a loaded 2-core
# machine.
#
#   bench/weaviate_cluster.sh GIT_KB_BINARY [REPO]
#
# REPO (default: a copy of this repository at HEAD) is published as
# "cluster-check"; the queries are README headings' words. Exit 0 when
# every query answered with a node down.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'for i in 1 2 3; do "$here/weaviate.sh" stop "$work/n$i" >/dev/null 2>&1 || true; done; rm -rf "$work"' EXIT
repo=${2:-}
if [ -z "$repo" ]; then
	repo=$work/repo
	git clone -q "$(dirname "$here")" "$repo"
fi

free_base() {
	python3 -c 'import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); b = s.getsockname()[1]; s.close()
    ok = b + 5 < 65536
    for p in range(b, b + 6):
        t = socket.socket()
        try: t.bind(("127.0.0.1", p))
        except OSError: ok = False
        t.close()
    if ok: print(b); break'
}
ports=()
for i in 1 2 3; do
	p=$(free_base)
	while [ ${#ports[@]} -gt 0 ] && printf '%s\n' "${ports[@]}" | awk -v p="$p" '{d = p - $1; if (d < 6 && d > -6) bad = 1} END {exit !bad}'; do p=$(free_base); done
	ports+=("$p")
done
join="node1:$((ports[0] + 4)),node2:$((ports[1] + 4)),node3:$((ports[2] + 4))"
start=$(date +%s)
pids=()
for i in 1 2 3; do
	extra=()
	[ "$i" -gt 1 ] && extra=(WEAVIATE_GOSSIP_JOIN=127.0.0.1:$((ports[0] + 2)))
	env WEAVIATE_JOIN="$join" WEAVIATE_BOOTSTRAP=3 WEAVIATE_GSE_CH=false WEAVIATE_READY_TIMEOUT=300 "${extra[@]}" \
		"$here/weaviate.sh" start "$work/n$i" "${ports[$((i - 1))]}" "node$i" >/dev/null &
	pids+=($!)
	if [ "$i" = 1 ]; then
		# The others join node1's gossip ring at start and exit if it is
		# not listening yet.
		for _ in $(seq 600); do
			(exec 3<>"/dev/tcp/127.0.0.1/$((ports[0] + 2))") 2>/dev/null && break
			sleep 0.2
		done
	fi
done
for p in "${pids[@]}"; do wait "$p"; done
echo "three nodes ready in $(($(date +%s) - start)) s on ports ${ports[*]}" >&2
url=http://127.0.0.1:${ports[0]}
git -C "$repo" config kb.org.url "$url"
git -C "$repo" config kb.org.repo cluster-check
# Replicated writes wait for the other node: on a loaded machine a batch
# takes far longer than the default 15 s.
git -C "$repo" config kb.org.timeoutMs "${ORG_TIMEOUT_MS:-120000}"
# A loaded machine can time out a replicated write; publishing again goes on
# from where it stopped.
for try in 1 2 3 4; do
	(cd "$repo" && "$kb" publish --replicas 2) && break
	[ "$try" = 4 ] && exit 1
done
queries=("hooks install" "secrets redacted" "context pack budget" "publish weaviate" "eval recall")
declare -A before
for q in "${queries[@]}"; do
	before[$q]=$(cd "$repo" && "$kb" search --org --json -n 1 "$q" | python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; print(r[0]["citation"] if r else "")')
done
"$here/weaviate.sh" stop "$work/n3"
echo "node3 stopped" >&2
fail=0
same=0
for q in "${queries[@]}"; do
	t0=$(date +%s%N)
	got=$(cd "$repo" && "$kb" search --org --json -n 1 "$q" 2>"$work/err" | python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; print(r[0]["citation"] if r else "")') || got="(error: $(head -c 600 "$work/err"))"
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [ -n "$got" ] && [ "$got" = "${before[$q]}" ]; then
		echo "ok   $q -> $got (${ms} ms, node3 down)"
		same=$((same + 1))
	elif [ -n "$got" ] && [ "${got#(error}" = "$got" ]; then
		# Answered, ranked without the collection's document frequencies
		# (Weaviate's counts need every shard's quorum): --json's
		# degraded says so.
		echo "diff $q -> $got, before ${before[$q]} (${ms} ms, node3 down)"
	else
		echo "FAIL $q -> $got, before ${before[$q]}"
		fail=1
	fi
done
echo "${#queries[@]} queries answered with node3 down, $same with the same first result" >&2
exit $fail

#!/usr/bin/env bash
# Build (once, cached) and run a Weaviate server on loopback for git kb's org
# search tests and figures (issue 17). Weaviate is built from the Go module
# proxy, so nothing but `go` is needed; the build takes about 5 minutes on 2
# cores and leaves one ~170 MB binary in the cache directory.
#
#   bench/weaviate.sh build                 build if missing; print the binary's path
#   bench/weaviate.sh path                  print the binary's path if built (exit 1 if not)
#   bench/weaviate.sh start DIR PORT [NODE] start one node (data in DIR, HTTP on
#                                           PORT, gRPC on PORT+1, cluster ports
#                                           PORT+2..PORT+5), wait until ready,
#                                           print its pid (log: DIR/weaviate.log)
#   bench/weaviate.sh stop DIR              stop the node started on DIR
#
# Environment: WEAVIATE_VERSION (default v1.35.2), WEAVIATE_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/git-kb/weaviate-$WEAVIATE_VERSION),
# WEAVIATE_JOIN (host:port,... of other nodes' Raft ports, for a cluster),
# WEAVIATE_GOSSIP_JOIN (host:port of a node's gossip port), WEAVIATE_BOOTSTRAP
# (number of voters, default 1), WEAVIATE_READY_TIMEOUT (seconds, default 120),
# WEAVIATE_GSE_CH (true/false: the Chinese tokenizer; default true when its
# dictionary is in the cache; it costs ~10 s and ~300 MB per node at start),
# WEAVIATE_PARENT_PID (stop the node when that process is gone: a test
# process that dies does not leave its server running).
set -euo pipefail

version=${WEAVIATE_VERSION:-v1.35.2}
cache=${WEAVIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/git-kb/weaviate-$version}
bin=$cache/weaviate-server

# dicts copies gse's Chinese dictionary beside the binary. Weaviate's gse_ch
# tokenizer loads it from a path relative to gse's source file, which
# -trimpath makes "github.com/go-ego/gse@VERSION/data/dict/zh/..." relative
# to the working directory; the server runs in $cache so that it resolves.
# Without the files, gse.New fails, Weaviate ignores the error, and every
# write to a gse_ch property panics (recovered) and leaves the object out of
# the inverted index.
dicts() {
	local gse
	gse=$(go version -m "$bin" | awk '$2 == "github.com/go-ego/gse" {print $2 "@" $3}')
	[ -n "$gse" ] || return 0
	[ -f "$cache/$gse/data/dict/zh/s_1.txt" ] && return 0
	local src
	src=$(go env GOMODCACHE)/$gse/data/dict/zh
	if [ ! -d "$src" ]; then
		GOFLAGS=-mod=mod go mod download -x "$gse" >/dev/null 2>&1 || true
	fi
	if [ -d "$src" ]; then
		mkdir -p "$cache/$gse/data/dict"
		cp -r "$src" "$cache/$gse/data/dict/"
		chmod -R u+w "$cache/$gse"
	fi
}

build() {
	if [ -x "$bin" ]; then
		echo "$bin"
		return
	fi
	mkdir -p "$cache"
	echo "building weaviate-server $version into $cache (takes minutes)" >&2
	# A lock so that parallel test packages build it once.
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -x "$bin" ]; then
		start=$(date +%s)
		CGO_ENABLED=0 GOBIN="$cache/tmp" GOFLAGS=-buildvcs=false nice go install -trimpath \
			"github.com/weaviate/weaviate/cmd/weaviate-server@$version" >&2
		mv "$cache/tmp/weaviate-server" "$bin"
		rmdir "$cache/tmp" 2>/dev/null || true
		dicts
		echo "built in $(($(date +%s) - start)) s: $(du -h "$bin" | cut -f1)" >&2
	fi
	flock -u 9
	echo "$bin"
}

start() {
	local dir=$1 port=$2 node=${3:-node1}
	build >/dev/null
	dicts
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	cd "$cache"
	local gsech=${WEAVIATE_GSE_CH:-}
	if [ -z "$gsech" ]; then
		gsech=false
		if [ -f "$cache"/github.com/go-ego/gse@*/data/dict/zh/s_1.txt ]; then gsech=true; fi
	fi
	CLUSTER_HOSTNAME=$node \
		CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
		CLUSTER_IN_LOCALHOST=true \
		CLUSTER_GOSSIP_BIND_PORT=$((port + 2)) \
		CLUSTER_DATA_BIND_PORT=$((port + 3)) \
		RAFT_PORT=$((port + 4)) \
		RAFT_INTERNAL_RPC_PORT=$((port + 5)) \
		RAFT_JOIN=${WEAVIATE_JOIN:-$node:$((port + 4))} \
		RAFT_BOOTSTRAP_EXPECT=${WEAVIATE_BOOTSTRAP:-1} \
		CLUSTER_JOIN=${WEAVIATE_GOSSIP_JOIN:-} \
		GRPC_PORT=$((port + 1)) \
		DISABLE_TELEMETRY=true \
		AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
		DEFAULT_VECTORIZER_MODULE=none \
		ENABLE_TOKENIZER_GSE_CH=$gsech \
		ENABLE_MODULES= \
		PERSISTENCE_DATA_PATH="$dir/data" \
		LOG_LEVEL=${WEAVIATE_LOG_LEVEL:-warning} \
		nohup "$bin" --host 127.0.0.1 --port "$port" --scheme http --write-timeout 300s --read-timeout 300s \
		>"$dir/weaviate.log" 2>&1 </dev/null &
	local pid=$!
	echo "$pid" >"$dir/weaviate.pid"
	if [ -n "${WEAVIATE_PARENT_PID:-}" ]; then
		# Its own descriptors: whoever waits for this script's output must
		# not wait for the watcher. Deaf to hangups, as the server is
		# (nohup).
		(
			trap '' HUP
			while kill -0 "$WEAVIATE_PARENT_PID" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 2; done
			kill "$pid" 2>/dev/null
		) >/dev/null 2>&1 </dev/null &
	fi
	local deadline=$(($(date +%s) + ${WEAVIATE_READY_TIMEOUT:-120}))
	until curl -fsS -o /dev/null "http://127.0.0.1:$port/v1/.well-known/ready" 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "weaviate-server exited; log $dir/weaviate.log:" >&2
			tail -20 "$dir/weaviate.log" >&2
			exit 1
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "weaviate-server not ready on port $port after ${WEAVIATE_READY_TIMEOUT:-120} s; log $dir/weaviate.log" >&2
			exit 1
		fi
		sleep 0.2
	done
	echo "$pid"
}

stop() {
	local dir=$1
	[ -f "$dir/weaviate.pid" ] || return 0
	local pid
	pid=$(cat "$dir/weaviate.pid")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/weaviate.pid"
}

case ${1:-} in
build) build ;;
path) [ -x "$bin" ] && echo "$bin" ;;
start) shift; start "$@" ;;
stop) shift; stop "$@" ;;
*) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs SQL over table stores on a two-shard ClickHouse cluster of its own.
#
#   tests/clickhouse/ch.sh [-o DIR] [--split rows|stores] [-r REPORT]... TSVDIR...
#
# TSVDIR is one store as `kutrace_sql STORE --export tsv TSVDIR` writes it:
# one TABLE.tsv per table of docs/TABLES.md, TabSeparatedWithNames (a header
# of column names, then rows; \N is NULL; \\ \t \n escaped; booleans 0/1).
# Installs clickhouse-server and clickhouse-client (Debian 12's 18.16) when
# missing, starts two servers listening on 127.0.0.1 only, on free ports,
# each with its own config and data under a temporary directory; the
# cluster "kt" has them as its two shards.  Creates schema.sql on both,
# loads the stores into the shards' NAME_local tables (--split rows, the
# default: the rows of each table alternately into shard 1 and shard 2;
# --split stores: the Nth store whole into shard 1 + N mod 2), runs each
# REPORT (reports/REPORT.sql, or a path to a .sql file) on shard 1 over the
# Distributed tables and stops both servers, whatever happens (trap EXIT).
# Without -o each report's result is printed as CSVWithNames; with -o, DIR
# gets REPORT.csv per report and counts.tsv: "table shard1 shard2 total"
# (total counted through the Distributed table).
# Exit status: 0 done, 1 failed, 2 usage, 77 ClickHouse is not installed
# and could not be.
set -u
here=$(cd "$(dirname "$0")" && pwd)
TABLES="span sched_slice thread_state slice thread process cpu machine counter
	wakeup ipi wait rpc lock mark pc_sample packet lost"
out="" split=rows reports=()
die() { echo "ch.sh: $*" >&2; exit 1; }
usage() { sed -n 's/^#   //p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	--split) split=$2; shift 2 ;;
	-r) reports+=("$2"); shift 2 ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
case $split in rows|stores) ;; *) usage ;; esac
for d in "$@"; do [ -d "$d" ] || die "$d: not a directory"; done
sqlfiles=()
for r in "${reports[@]}"; do
	case $r in *.sql) f=$r ;; *) f=$here/reports/$r.sql ;; esac
	[ -f "$f" ] || die "no report $r ($f)"
	sqlfiles+=("$f")
done
[ -z "$out" ] || mkdir -p "$out" || die "cannot make $out"

# The package, installed once: the package's own service (started where
# policy lets it, on ports 9000 and 8123) is stopped and disabled at once;
# only our servers run.
# tzdata too: the server will not start without /usr/share/zoneinfo, and
# Debian's package does not depend on it (a fresh machine may lack it).
if ! command -v clickhouse-server >/dev/null || ! command -v clickhouse-client >/dev/null ||
	[ ! -d /usr/share/zoneinfo ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo -n"
	export DEBIAN_FRONTEND=noninteractive
	inst() { $sudo apt-get install -y -q --no-install-recommends clickhouse-server clickhouse-client tzdata; }
	{ inst || { $sudo apt-get update -q && inst; }; } >&2 ||
		{ echo "ch.sh: cannot install clickhouse-server" >&2; exit 77; }
	if command -v systemctl >/dev/null; then
		$sudo systemctl disable --now clickhouse-server >/dev/null 2>&1 || true
	fi
	if command -v service >/dev/null; then
		$sudo service clickhouse-server stop >/dev/null 2>&1 || true
	fi
fi
command -v clickhouse-server >/dev/null || { echo "ch.sh: no clickhouse-server" >&2; exit 77; }

W=$(mktemp -d "${TMPDIR:-/tmp}/kt-ch.XXXXXX") || die "mktemp"
pids=()
stop() {
	local p i
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$W"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

# Two free TCP ports on 127.0.0.1 (the kernel's choice).
read -r P1 P2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])') || die "no free ports"
PORTS=("$P1" "$P2")

for n in 1 2; do
	d=$W/s$n port=${PORTS[n-1]}
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
	# No http, interserver or ZooKeeper: the native protocol on 127.0.0.1
	# is all a Distributed table over non-replicated shards needs.
	cat > "$d/config.xml" <<-EOF
	<?xml version="1.0"?>
	<yandex>
	  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/server.err.log</errorlog></logger>
	  <listen_host>127.0.0.1</listen_host>
	  <tcp_port>$port</tcp_port>
	  <path>$d/data/</path>
	  <tmp_path>$d/tmp/</tmp_path>
	  <user_files_path>$d/user_files/</user_files_path>
	  <format_schema_path>$d/format_schemas/</format_schema_path>
	  <mark_cache_size>67108864</mark_cache_size>
	  <uncompressed_cache_size>67108864</uncompressed_cache_size>
	  <max_concurrent_queries>20</max_concurrent_queries>
	  <users_config>$d/users.xml</users_config>
	  <default_profile>default</default_profile>
	  <default_database>default</default_database>
	  <timezone>UTC</timezone>
	  <remote_servers><kt>
	    <shard><replica><host>127.0.0.1</host><port>$P1</port></replica></shard>
	    <shard><replica><host>127.0.0.1</host><port>$P2</port></replica></shard>
	  </kt></remote_servers>
	</yandex>
	EOF
	cat > "$d/users.xml" <<-EOF
	<?xml version="1.0"?>
	<yandex>
	  <profiles><default><max_threads>2</max_threads></default></profiles>
	  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
	    <profile>default</profile><quota>default</quota></default></users>
	  <quotas><default></default></quotas>
	</yandex>
	EOF
	clickhouse-server --config-file="$d/config.xml" > "$d/stdout.log" 2>&1 &
	pids+=($!)
done

cli() { local port=$1; shift; clickhouse-client --host 127.0.0.1 --port "$port" "$@"; }
for n in 1 2; do
	port=${PORTS[n-1]} up=0
	for i in $(seq 300); do
		if cli "$port" -q 'SELECT 1' >/dev/null 2>&1; then up=1; break; fi
		kill -0 "${pids[n-1]}" 2>/dev/null || break
		sleep 0.1
	done
	if [ $up = 0 ]; then
		tail -5 "$W/s$n/server.err.log" "$W/s$n/stdout.log" >&2 2>/dev/null
		die "server $n (port $port) did not start"
	fi
done

for port in "${PORTS[@]}"; do
	cli "$port" --multiquery < "$here/schema.sql" || die "schema on port $port"
done

# Loading: the header names the columns (so their order need not be the
# schema's); the rows go to shard 1 or 2 as --split says.  The stores'
# rows of a table go in with one INSERT per shard while their headers agree.
for d in "$@"; do
	for f in "$d"/*.tsv; do
		[ -e "$f" ] || continue
		t=$(basename "$f" .tsv)
		echo " $TABLES " | tr -s ' \t\n' ' ' | grep -q " $t " || die "$f: no table $t in schema.sql"
	done
done
flush() { # insert the batch of table $t with header $head
	local n
	[ -n "$head" ] || return 0
	cols=$(printf '%s\n' "$head" | sed 's/\t/`, `/g; s/^/`/; s/$/`/')
	for n in 1 2; do
		[ -s "$W/rows$n" ] || continue
		cli "${PORTS[n-1]}" -q "INSERT INTO ${t}_local ($cols) FORMAT TabSeparated" < "$W/rows$n" ||
			die "$t: loading into shard $n failed"
	done
	: > "$W/rows1"; : > "$W/rows2"
}
for t in $TABLES; do
	head="" k=0
	: > "$W/rows1"; : > "$W/rows2"
	for d in "$@"; do
		f=$d/$t.tsv
		if [ -f "$f" ]; then
			h=$(head -1 "$f" | tr -d '\r')
			[ "$h" = "$head" ] || { flush; head=$h; }
			if [ $split = stores ]; then
				tail -n +2 "$f" >> "$W/rows$((k % 2 + 1))"
			else
				tail -n +2 "$f" | awk -v k=$k -v a="$W/rows1" -v b="$W/rows2" \
					'{ print >> ((NR + k) % 2 ? a : b) }'
			fi
		fi
		k=$((k + 1))
	done
	flush
done

if [ -n "$out" ]; then
	counts() { # PORT SUFFIX: "table count" per table
		local q="" t
		for t in $TABLES; do q="$q${q:+ UNION ALL }SELECT '$t', count() FROM $t$2"; done
		cli "$1" -q "$q" | LC_ALL=C sort
	}
	counts "$P1" _local > "$W/c1" && counts "$P2" _local > "$W/c2" && counts "$P1" "" > "$W/c" ||
		die "counting rows failed"
	LC_ALL=C join "$W/c1" "$W/c2" | LC_ALL=C join - "$W/c" | tr ' ' '\t' > "$out/counts.tsv"
fi

for i in "${!sqlfiles[@]}"; do
	f=${sqlfiles[i]}
	name=$(basename "$f" .sql)
	# A report is one SELECT: its comments and final semicolon stripped.
	q=$(sed 's/--.*//' "$f" | tr '\n' ' ' | sed 's/[; ]*$//')
	if [ -n "$out" ]; then
		cli "$P1" --format CSVWithNames -q "$q" > "$out/$name.csv" || die "report $name failed"
	else
		cli "$P1" --format CSVWithNames -q "$q" || die "report $name failed"
	fi
done
exit 0

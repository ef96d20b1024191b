-- SPDX-License-Identifier: BSD-3-Clause
-- The tables of docs/TABLES.md for ClickHouse 18.16 (Debian 12's
-- clickhouse-server), as run by tests/clickhouse/ch.sh on each of the two
-- shards of the cluster "kt": NAME_local is the shard's MergeTree table,
-- NAME the Distributed table over the NAME_local of both shards (the
-- reports read NAME, so they are the same SQL as on one store in DuckDB).
-- Types: BIGINT Int64, INTEGER Int32, VARCHAR String, DOUBLE Float64,
-- BOOLEAN UInt8 (18.16 has no Bool); Nullable(...) where docs/TABLES.md
-- lets a column be NULL (18.16 allows no Nullable column in a sorting key).
-- Rows load by the names of the TSV header, so the column order here is
-- docs/TABLES.md's only for SELECT *.

CREATE TABLE span_local (
	ts Int64, dur Int64, cpu Int32, pid Int32, rpc Int32, event Int32,
	arg Int64, ret Int64, ipc Int32, name String,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts, cpu);

CREATE TABLE sched_slice_local (
	ts Int64, dur Int64, cpu Int32, pid Int32, name String,
	end_state Nullable(String),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, cpu, ts);

CREATE TABLE thread_state_local (
	ts Int64, dur Int64, pid Int32, state String, cpu Int32,
	reason Nullable(String), waker_pid Nullable(Int32), waker_cpu Nullable(Int32),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, pid, ts);

CREATE TABLE slice_local (
	id Int64, ts Int64, dur Int64, cpu Int32, pid Int32, rpc Int32,
	event Int32, name String, kind String, arg Int64, ret Int64,
	depth Int32, parent_id Nullable(Int64), self_ns Int64,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts, id);

CREATE TABLE thread_local (
	pid Int32, name String, start_ts Int64, end_ts Int64, run_ns Int64,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, pid);

CREATE TABLE process_local (
	pid Int32, name String,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, pid);

CREATE TABLE cpu_local (
	cpu Int32, start_ts Int64, end_ts Int64,
	busy_ns Int64, user_ns Int64, kernel_ns Int64, idle_ns Int64, cexit_ns Int64,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, cpu);

CREATE TABLE machine_local (
	kernel Nullable(String), cpu_model Nullable(String), tracebase Nullable(String),
	backend Nullable(String), tool_version Nullable(String),
	mbit_sec Nullable(Float64), flags Nullable(Int64), cpus Nullable(Int32),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, machine);

CREATE TABLE counter_local (
	ts Int64, dur Int64, cpu Int32, name String, value Float64,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, cpu, ts);

CREATE TABLE wakeup_local (
	ts Int64, waker_pid Int32, waker_cpu Int32,
	wakee_pid Int32, wakee_cpu Nullable(Int32),
	latency Nullable(Int64), reason Nullable(String),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts);

CREATE TABLE ipi_local (
	ts Int64, cpu Int32, target_cpu Int32, latency Nullable(Int64),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts);

CREATE TABLE wait_local (
	ts Int64, dur Int64, pid Int32, rpc Int32, event Int32, reason String,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, pid, ts);

CREATE TABLE rpc_local (
	rpc Int32, parent Nullable(Int32), method Nullable(String), pid Int32,
	side String, begin_ts Int64, end_ts Int64, cpu_ns Int64,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, rpc, pid);

CREATE TABLE lock_local (
	ts Int64, dur Int64, lock Int64, name String, pid Int32, kind String,
	holder Nullable(Int32),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, lock, ts);

CREATE TABLE mark_local (
	ts Int64, cpu Int32, pid Int32, kind String, arg Int64, label String,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts);

CREATE TABLE pc_sample_local (
	ts Int64, dur Int64, cpu Int32, pid Int32, kernel UInt8, arg Int64,
	name String,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, cpu, ts);

CREATE TABLE packet_local (
	ts Int64, dur Nullable(Int64), cpu Int32, pid Int32, rpc Int32,
	hash Nullable(Int64), direction String, bytes Nullable(Int64),
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts);

CREATE TABLE lost_local (
	ts Int64, dur Nullable(Int64), cpu Int32, entries Nullable(Int64), reason String,
	trace_id String, machine String
) ENGINE = MergeTree ORDER BY (trace_id, ts);

CREATE TABLE span AS span_local ENGINE = Distributed(kt, default, span_local);
CREATE TABLE sched_slice AS sched_slice_local ENGINE = Distributed(kt, default, sched_slice_local);
CREATE TABLE thread_state AS thread_state_local ENGINE = Distributed(kt, default, thread_state_local);
CREATE TABLE slice AS slice_local ENGINE = Distributed(kt, default, slice_local);
CREATE TABLE thread AS thread_local ENGINE = Distributed(kt, default, thread_local);
CREATE TABLE process AS process_local ENGINE = Distributed(kt, default, process_local);
CREATE TABLE cpu AS cpu_local ENGINE = Distributed(kt, default, cpu_local);
CREATE TABLE machine AS machine_local ENGINE = Distributed(kt, default, machine_local);
CREATE TABLE counter AS counter_local ENGINE = Distributed(kt, default, counter_local);
CREATE TABLE wakeup AS wakeup_local ENGINE = Distributed(kt, default, wakeup_local);
CREATE TABLE ipi AS ipi_local ENGINE = Distributed(kt, default, ipi_local);
CREATE TABLE wait AS wait_local ENGINE = Distributed(kt, default, wait_local);
CREATE TABLE rpc AS rpc_local ENGINE = Distributed(kt, default, rpc_local);
CREATE TABLE lock AS lock_local ENGINE = Distributed(kt, default, lock_local);
CREATE TABLE mark AS mark_local ENGINE = Distributed(kt, default, mark_local);
CREATE TABLE pc_sample AS pc_sample_local ENGINE = Distributed(kt, default, pc_sample_local);
CREATE TABLE packet AS packet_local ENGINE = Distributed(kt, default, packet_local);
CREATE TABLE lost AS lost_local ENGINE = Distributed(kt, default, lost_local);

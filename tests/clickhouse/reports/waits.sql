-- SPDX-License-Identifier: BSD-3-Clause
-- Report "waits": one row per thread of each trace and wait reason, from
-- the wait table, with the thread's name from the thread table.
-- Columns: trace_id, pid, name, reason, ns, count
--   name   thread.name of (trace_id, pid); '' when thread has no such row
--          (DuckDB: LEFT JOIN thread USING (trace_id, pid), coalesce(name, ''))
--   ns     sum(dur)
--   count  count(*)
-- ORDER BY ns DESC, trace_id, pid, reason
SELECT trace_id, pid, name, reason, ns, count
FROM (
	SELECT trace_id, pid, reason, sum(dur) AS ns, count() AS count
	FROM wait
	GROUP BY trace_id, pid, reason
)
ANY LEFT JOIN (
	SELECT trace_id, pid, name FROM thread
) USING (trace_id, pid)
ORDER BY ns DESC, trace_id, pid, reason;

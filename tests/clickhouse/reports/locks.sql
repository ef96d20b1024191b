-- SPDX-License-Identifier: BSD-3-Clause
-- Report "locks": one row per lock of each trace, from the lock table.
-- Columns: trace_id, lock, name, acquires, hold_ns, hold_max_ns, wait_ns,
--          wait_max_ns, waits
--   name         min(name)
--   acquires     rows of kind 'acquire'
--   hold_ns      sum(dur) of kind 'held'; hold_max_ns their max
--   wait_ns      sum(dur) of kind 'wait' (contended waits); wait_max_ns their max
--   waits        rows of kind 'wait'
--   sums and maxima over no rows are 0 (DuckDB: coalesce(..., 0))
-- ORDER BY wait_ns DESC, hold_ns DESC, trace_id, lock
SELECT trace_id, lock, name, acquires, hold_ns, hold_max_ns, wait_ns, wait_max_ns, waits
FROM (
	SELECT trace_id, lock,
		min(name) AS name,
		countIf(kind = 'acquire') AS acquires,
		sumIf(dur, kind = 'held') AS hold_ns,
		maxIf(dur, kind = 'held') AS hold_max_ns,
		sumIf(dur, kind = 'wait') AS wait_ns,
		maxIf(dur, kind = 'wait') AS wait_max_ns,
		countIf(kind = 'wait') AS waits
	FROM lock
	GROUP BY trace_id, lock
)
ORDER BY wait_ns DESC, hold_ns DESC, trace_id, lock;

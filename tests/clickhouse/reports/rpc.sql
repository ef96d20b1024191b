-- SPDX-License-Identifier: BSD-3-Clause
-- Report "rpc": one row per RPC method over all the stores.  An RPC is a
-- (trace_id, rpc) with rpc > 0; its latency is max(end_ts) - min(begin_ts)
-- over its rows of the rpc table, its method min(method) over them ('' when
-- every row's method is NULL).
-- Columns: method, count, p50_ns, p99_ns, max_ns, slowest
--   count    number of RPCs
--   p50_ns   nearest rank: the ceil(n/2)-th smallest latency
--            (DuckDB: quantile_disc(latency, 0.5))
--   p99_ns   nearest rank: the ceil(99n/100)-th smallest latency
--            (DuckDB: quantile_disc(latency, 0.99))
--   max_ns   max(latency)
--   slowest  the (up to) 3 slowest RPCs as TRACE_ID:RPC, separated by one
--            space, by latency descending, then trace_id, then rpc
-- ORDER BY p99_ns DESC, method
SELECT method, count, p50_ns, p99_ns, max_ns, slowest
FROM (
	SELECT method,
		count() AS count,
		arraySort(groupArray(latency)) AS sorted,
		sorted[intDiv(count + 1, 2)] AS p50_ns,
		sorted[intDiv(99 * count + 99, 100)] AS p99_ns,
		max(latency) AS max_ns,
		arrayStringConcat(arrayMap(t -> concat(tupleElement(t, 2), ':', toString(tupleElement(t, 3))),
			arraySlice(arraySort(groupArray((-latency, trace_id, rpc))), 1, 3)), ' ') AS slowest
	FROM (
		SELECT trace_id, rpc, ifNull(min(method), '') AS method,
			max(end_ts) - min(begin_ts) AS latency
		FROM rpc
		WHERE rpc > 0
		GROUP BY trace_id, rpc
	)
	GROUP BY method
)
ORDER BY p99_ns DESC, method;

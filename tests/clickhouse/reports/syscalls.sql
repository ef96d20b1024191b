-- SPDX-License-Identifier: BSD-3-Clause
-- Report "syscalls": one row per system call name over all the stores,
-- from the slices of kind 'syscall' (a call that blocked is two slices).
-- Columns: name, count, total_ns, p50_ns, p99_ns, max_ns
--   count     count(*)
--   total_ns  sum(dur)
--   p50_ns    nearest rank: the ceil(n/2)-th smallest dur
--             (DuckDB: quantile_disc(dur, 0.5))
--   p99_ns    nearest rank: the ceil(99n/100)-th smallest dur
--             (DuckDB: quantile_disc(dur, 0.99))
--   max_ns    max(dur)
-- ORDER BY total_ns DESC, name
SELECT name, count, total_ns, p50_ns, p99_ns, max_ns
FROM (
	SELECT name,
		count() AS count,
		sum(dur) AS total_ns,
		arraySort(groupArray(dur)) AS sorted,
		sorted[intDiv(count + 1, 2)] AS p50_ns,
		sorted[intDiv(99 * count + 99, 100)] AS p99_ns,
		max(dur) AS max_ns
	FROM slice
	WHERE kind = 'syscall'
	GROUP BY name
)
ORDER BY total_ns DESC, name;

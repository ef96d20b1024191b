-- SPDX-License-Identifier: BSD-3-Clause
-- Report "cpu": one row per CPU of each trace, from the cpu table, whose
-- sums the store's writer took over the execution rows of span
-- (docs/TABLES.md, "cpu"; t_tables checks them against the JSON).
-- Columns: trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns, busy_pct
--   busy_pct   (user_ns + kernel_ns) / (all four) in percent, rounded half
--              up to 2 decimals in integers, then / 100:
--              (20000 * busy + total) // (2 * greatest(total, 1)) / 100
--              (a double; // is integer division, 0 when total = 0)
-- ORDER BY trace_id, cpu
SELECT trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns,
	intDiv(20000 * (user_ns + kernel_ns) + total, 2 * greatest(total, 1)) / 100 AS busy_pct
FROM (
	SELECT trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns,
		user_ns + kernel_ns + idle_ns + cexit_ns AS total
	FROM cpu
)
ORDER BY trace_id, cpu;

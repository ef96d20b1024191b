-- SPDX-License-Identifier: BSD-3-Clause
-- Report "cpu": one row per CPU of each trace, from the execution rows of
-- span (docs/TABLES.md, "Units and conventions").
-- Columns: trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns, busy_pct
--   kernel_ns  sum(dur), event 1024..4095 (0x400..0xFFF)
--   idle_ns    sum(dur), event = 65536 (0x10000)
--   user_ns    sum(dur), event > 65536 and event = 65536 + pid
--   cexit_ns   sum(dur), event = 131072 (0x20000) and pid <> 65536
--              (a thread 65536's user code is event 0x20000 too)
--   busy_pct   (user_ns + kernel_ns) / (all four) in percent, rounded half
--              up to 2 decimals in integers, then / 100:
--              (20000 * busy + total) // (2 * greatest(total, 1)) / 100
--              (a double; // is integer division, 0 when total = 0)
-- Only rows with cpu >= 0 and one of those four classes count; a CPU with
-- none is no row.  Sums are 0 when nothing counts.
-- ORDER BY trace_id, cpu
SELECT trace_id, cpu, user_ns, kernel_ns, idle_ns, cexit_ns,
	intDiv(20000 * (user_ns + kernel_ns) + total, 2 * greatest(total, 1)) / 100 AS busy_pct
FROM (
	SELECT trace_id, cpu,
		sumIf(dur, event > 65536 AND event = 65536 + pid) AS user_ns,
		sumIf(dur, event >= 1024 AND event <= 4095) AS kernel_ns,
		sumIf(dur, event = 65536) AS idle_ns,
		sumIf(dur, event = 131072 AND pid != 65536) AS cexit_ns,
		user_ns + kernel_ns + idle_ns + cexit_ns AS total
	FROM span
	WHERE cpu >= 0 AND ((event >= 1024 AND event <= 4095) OR event >= 65536)
	GROUP BY trace_id, cpu
)
ORDER BY trace_id, cpu;

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks rgbench's Mann-Whitney U (U and two-sided p) against scipy.stats on random samples."""
import random
import subprocess
import sys

try:
    from scipy.stats import mannwhitneyu
except ImportError:
    print("scipy not installed (python3-scipy): skipped")
    sys.exit(77)

R = sys.argv[1]
rng = random.Random(20260101)
bad = 0
cases = 0
for n1, n2 in [(5, 5), (5, 6), (6, 9), (8, 8), (10, 12), (15, 20), (25, 25), (26, 25), (40, 60)]:
    for ties in (False, True):
        for _ in range(6):
            if ties:
                x = [rng.randint(0, 6) * 0.5 for _ in range(n1)]
                y = [rng.randint(1, 7) * 0.5 for _ in range(n2)]
            else:
                x = [round(rng.gauss(10, 1), 6) for _ in range(n1)]
                y = [round(rng.gauss(10 + rng.choice([0, 0.8, 2]), 1), 6) for _ in range(n2)]
            has_ties = len(set(x + y)) < n1 + n2
            out = subprocess.run([R, "mwu", ",".join(map(repr, x)), ",".join(map(repr, y))],
                                 check=True, capture_output=True, text=True).stdout.split()
            u1, p, method = float(out[0]), float(out[1]), out[2]
            want_exact = not has_ties and n1 <= 25 and n2 <= 25
            ref = mannwhitneyu(x, y, alternative="two-sided", use_continuity=True,
                               method="exact" if want_exact else "asymptotic")
            cases += 1
            if (method == "exact") != want_exact or abs(u1 - ref.statistic) > 1e-9 or \
                    abs(p - ref.pvalue) > 1e-9 * max(1.0, ref.pvalue):
                bad += 1
                print(f"MISMATCH n={n1},{n2} ties={has_ties}: ours U={u1} p={p} {method}; "
                      f"scipy U={ref.statistic} p={ref.pvalue}")
print(f"mwu vs scipy: {cases - bad}/{cases} agree")
sys.exit(1 if bad else 0)

# phases.py NETFILE: per update (an rx burst start after >= 5 ms of rx idle), ms from the rx start to the tx
# start (tx above 0.5 of the rate), to the rx end and to the tx end.
import sys
R = 125e3  # bytes/ms
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
samples = []
for (t0, r0, x0), (t1, r1, x1) in zip(rows, rows[1:]):
    dt = (t1 - t0) * 1e3
    samples.append((t0 * 1e3, (r1 - r0) / dt / R, (x1 - x0) / dt / R))
out = []
i = 0
n = len(samples)
while i < n:
    if samples[i][1] > 0.5 and all(samples[j][1] < 0.2 for j in range(max(0, i - 5), i)):
        t_start = samples[i][0]
        j = i
        tx_start = rx_end = tx_end = None
        idle_rx = 0
        while j < n and samples[j][0] - t_start < 200:
            t, r, x = samples[j]
            if tx_start is None and x > 0.5: tx_start = t - t_start
            if r > 0.5: rx_end = t - t_start
            if x > 0.5: tx_end = t - t_start
            if r < 0.2 and x < 0.2 and samples[j][0] - t_start > 20:
                break
            j += 1
        out.append((tx_start, rx_end, tx_end))
        i = j
    i += 1
for o in out: print(" ".join("-" if v is None else f"{v:5.1f}" for v in o))

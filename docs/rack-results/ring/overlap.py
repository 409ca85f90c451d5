# overlap.py NETFILE...: from 1 ms samples of the server link's rx/tx bytes, the time each direction ran near the
# link rate and the time both did at once, over the span in which any traffic ran.
import sys
R = 125e6  # bytes/s at 1 Gbit/s
for path in sys.argv[1:]:
    rows = [tuple(map(float, l.split())) for l in open(path)]
    both = rx = tx = busy = 0.0
    rxb = txb = 0.0
    for (t0, r0, x0), (t1, r1, x1) in zip(rows, rows[1:]):
        dt = t1 - t0
        if dt <= 0: continue
        ar = (r1 - r0) / dt / R > 0.3
        at = (x1 - x0) / dt / R > 0.3
        rxb += r1 - r0; txb += x1 - x0
        if ar or at: busy += dt
        if ar: rx += dt
        if at: tx += dt
        if ar and at: both += dt
    print(f"{path}: busy {busy:.3f} s, rx {rx:.3f} s ({rxb/1e6:.1f} MB, {rxb/R:.3f} s at rate), tx {tx:.3f} s ({txb/1e6:.1f} MB, {txb/R:.3f} s at rate), both {both:.3f} s = {both/max(rx,1e-9):.2f} of rx time")

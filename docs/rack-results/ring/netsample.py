# Samples rx/tx bytes of one interface in this network namespace every PERIOD s until killed; writes t rx tx lines.
import sys, time, signal
dev, out, period = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = []
stop = False
def handler(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, handler)
with open("/proc/net/dev") as f:
    while not stop:
        f.seek(0)
        for line in f.read().splitlines():
            if line.strip().startswith(dev + ":"):
                fields = line.split(":", 1)[1].split()
                rows.append((time.monotonic(), int(fields[0]), int(fields[8])))
        time.sleep(period)
with open(out, "w") as o:
    for r in rows: o.write(f"{r[0]:.6f} {r[1]} {r[2]}\n")

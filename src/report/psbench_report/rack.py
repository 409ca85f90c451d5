"""The rack sweep's medians, shared by the answers, the findings and figure 12."""

from statistics import median


def rack_medians(rack) -> dict:
    """{io: {servers: (utilisation by W, samples/s by W)}}: the medians of each configuration's repetitions, W
    ascending, for every I/O mode and server count the rack sweep holds."""
    found = {}
    for io in ("sequential", "parallel"):
        for servers in (1, 2):
            by_w = {}
            for run in rack.runs:
                if run.io == io and run.servers == servers:
                    by_w.setdefault(run.workers, []).append(run)
            if by_w:
                found.setdefault(io, {})[servers] = (
                    {w: median(r.utilization for r in rs) for w, rs in sorted(by_w.items())},
                    {w: median(r.samples_per_s for r in rs) for w, rs in sorted(by_w.items())})
    return found

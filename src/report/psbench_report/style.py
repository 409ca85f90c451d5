"""Plot conventions of published HPC scaling figures: measured points as markers, models as lines, colours
that survive greyscale printing (distinct lightness, plus distinct markers and line styles), units on axes."""

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter  # noqa: E402

#: Figure size in inches and resolution: 8 x 4.5 in at 150 dpi is 1200 x 675 pixels, readable at page width.
FIGURE_INCHES = (8.0, 4.5)
DPI = 150
#: Okabe-Ito colours ordered from dark to light, so neighbours differ in greyscale too.
COLOURS = ("#000000", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")
MARKERS = ("o", "s", "^", "D", "v", "P")
#: One line style per model kind, so kinds differ without colour.
KIND_STYLES = {"ideal": ":", "revised": "--", "mva": "-.", "sim": "-"}
KIND_COLOURS = {"ideal": "#000000", "revised": "#0072B2", "mva": "#D55E00", "sim": "#009E73"}
KIND_LABELS = {"ideal": "ideal model", "revised": "revised model", "mva": "MVA model", "sim": "SimGrid simulation"}
HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--")

plt.rcParams.update({
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 7.5, "xtick.labelsize": 8,
    "ytick.labelsize": 8, "axes.grid": True, "grid.alpha": 0.3, "lines.linewidth": 1.4, "lines.markersize": 6,
    "svg.fonttype": "none", "svg.hashsalt": "psbench", "legend.framealpha": 0.85,
})


def new_figure(rows: int = 1, cols: int = 1, height: float | None = None):
    """A figure of the report's size with a rows x cols grid of axes (always a 2-D array)."""
    size = (FIGURE_INCHES[0], height or FIGURE_INCHES[1])
    figure, axes = plt.subplots(rows, cols, figsize=size, dpi=DPI, squeeze=False, layout="constrained")
    return figure, axes


def figure_legend(figure, handles: list, labels: list, where: str = "bottom", ncol: int = 3) -> None:
    """A legend outside the panels, below them or to their right, with the panels shrunk to make room
    (matplotlib 3.6's constrained layout leaves figure legends out, so the room is reserved by hand)."""
    if not handles:
        return
    inches_per_row = 0.19
    if where == "bottom":
        rows = -(-len(labels) // ncol)
        share = min(0.4, (rows * inches_per_row + 0.15) / figure.get_figheight())
        figure.get_layout_engine().set(rect=(0, share, 1, 1 - share))
        figure.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False)
    else:
        longest = max(len(label) for label in labels)
        share = min(0.45, (longest * 0.055 + 0.5) / figure.get_figwidth())
        figure.get_layout_engine().set(rect=(0, 0, 1 - share, 1))
        figure.legend(handles, labels, loc="center right", frameon=False)


def proxy_line(**style):
    """A legend entry drawn nowhere: for legends that explain line styles and colours apart."""
    return Line2D([], [], **style)


def measured_style(index: int) -> dict:
    """Marker style of the index-th measured series: markers only, no line."""
    return {"marker": MARKERS[index % len(MARKERS)], "color": COLOURS[index % len(COLOURS)], "linestyle": "none",
            "markerfacecolor": "white" if index % 2 else COLOURS[index % len(COLOURS)], "markeredgewidth": 1.2}


def config_style(colour_index: int, marker_index: int, filled: bool) -> dict:
    """Marker style of a measured configuration: colour and marker chosen by the caller (server count or I/O
    mode), filled or hollow by the other (filled: sequential I/O)."""
    colour = COLOURS[colour_index % len(COLOURS)]
    return {"marker": MARKERS[marker_index % len(MARKERS)], "color": colour, "linestyle": "none",
            "markerfacecolor": colour if filled else "white", "markeredgewidth": 1.2}


def model_style(kind: str) -> dict:
    """Line style of one model kind."""
    return {"linestyle": KIND_STYLES[kind], "color": KIND_COLOURS[kind]}


def worker_axis(axis, counts: list, label: str = "workers W") -> None:
    """A worker axis: log2 when the counts span more than a factor of 8, else linear; ticks at the counts."""
    counts = sorted(set(counts))
    axis.set_xlabel(label)
    if counts and counts[-1] / counts[0] > 8:
        axis.set_xscale("log", base=2)
        low, high = math.floor(math.log2(counts[0])), math.ceil(math.log2(counts[-1]))
        step = max(1, -(-(high - low) // 7))
        axis.xaxis.set_major_locator(FixedLocator([2.0 ** e for e in range(low, high + 1, step)]))
        axis.xaxis.set_minor_locator(NullLocator())
        formatter = ScalarFormatter()
        formatter.set_scientific(False)
        axis.xaxis.set_major_formatter(formatter)
    else:
        axis.xaxis.set_major_locator(FixedLocator(counts))
        if counts:
            axis.set_xlim(counts[0] - 0.4, counts[-1] + 0.4)


def empty_panel(axis, text: str) -> None:
    """Marks a panel that has nothing to show, with the reason in it."""
    axis.text(0.5, 0.5, text, ha="center", va="center", transform=axis.transAxes, wrap=True, fontsize=8)
    axis.set_xticks([])
    axis.set_yticks([])
    axis.grid(False)


def save(figure, folder: Path, stem: str) -> list:
    """Writes the figure as PNG and SVG (each to a temporary name, then renamed; no date inside, so the same
    inputs give the same files); returns the file names."""
    names = []
    for suffix in ("png", "svg"):
        final = folder / f"{stem}.{suffix}"
        partial = folder / f".{stem}.partial.{suffix}"
        figure.savefig(partial, format=suffix, dpi=DPI, metadata={"Date": None} if suffix == "svg" else None)
        partial.replace(final)
        names.append(final.name)
    plt.close(figure)
    return names

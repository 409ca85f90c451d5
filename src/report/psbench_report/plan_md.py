"""report.md's section "Planning a cluster": what `psbench model plan` recommends for the study's workload, and
the bottleneck it names, in its own words (figure 10)."""

from .numbers import seconds


def _configuration(point: dict) -> str:
    nodes = f"{point['nodes']} node{'' if point['nodes'] == 1 else 's'}"
    return (f"{point['servers']} server{'' if point['servers'] == 1 else 's'} and {point['workers']} workers, "
            f"{point['ranks_per_node']} ranks per node on {nodes}, {point['io']} I/O: "
            f"{seconds(point['mva']['total_s'])} predicted ({point['mva']['samples_per_s']:,.0f} samples/s)")


def plan_section(study) -> list:
    """The section's lines: the recommendation, the study's set-up beside it, and each one's bottleneck."""
    head = []
    if study is None or study.plan is None:
        return head + [f"Not answered: the model gave no plan ({study.failure if study else 'not asked'}).", ""]
    inputs, best, setup = study.plan["inputs"], study.recommendation, study.plan["study"]
    asked = (f"`psbench model plan --calib CALIB --model {inputs['model']} --batch {inputs['batch']} "
             f"--samples {inputs['samples']} --epochs {inputs['epochs']} --platform {inputs['platform']} "
             f"--nodes {inputs['nodes']}` (CALIB: the report's calibration)")
    return head + [
        f"For the study's workload on the '{study.platform}' platform within {study.nodes} nodes, {asked} searched "
        f"{study.plan['searched']} configurations with the MVA model and recommends {_configuration(best)}. "
        f"Its bottleneck: {best['bottleneck']['words']}.", "",
        f"The study's set-up, one server and sequential I/O, at its best: {_configuration(setup)}. Its bottleneck: "
        f"{setup['bottleneck']['words']}.", "",
        "Model only: nothing in this section was measured; the model's error on the measured sweep is RQ4's.", ""]

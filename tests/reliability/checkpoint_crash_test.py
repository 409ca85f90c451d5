#!/usr/bin/env python3
"""A worker crashes mid-run; the checkpoint it leaves resumes to the same accuracy bar as a run that never
crashed, and the resumed run's results file says where it resumed.

  checkpoint_crash_test.py SCRATCH DATA PSBENCH H5DUMP MPIEXEC...

1. 1 server + 2 workers train with --checkpoint every 40 pushes; worker rank 2 crashes at its step 100
   (--inject-fault): the job must end non-zero.
2. The checkpoint is valid HDF5 (h5dump reads it) with psbench_checkpoint_format 1, and no step past the crash.
3. The same command with --resume (no fault) finishes; an uninterrupted run finishes too.
4. Both reach the accuracy bar of the MPI training tests (0.70, chance 0.10); the resumed run's results say
   resumed_from = the checkpoint, at the step the file holds.
"""
import json
import os
import re
import subprocess
import sys

ACCURACY_BAR = 0.70  # kAccuracyBar of tests/mpi/train/train_fixture.hpp, on the same subset and model
CRASH_STEP = 100  # of 60 steps per worker per epoch: in epoch 1


def run(command, timeout=90):
    started = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return started.returncode, started.stdout + started.stderr


def h5dump_attribute(h5dump, path, name):
    code, text = run([h5dump, "-a", "/" + name, path], timeout=30)
    assert code == 0, f"h5dump cannot read attribute {name} of {path} (exit {code}):\n{text}"
    found = re.search(r"\(0\): (\d+)", text)
    assert found, f"no value in h5dump's output for {name}:\n{text}"
    return int(found.group(1))


def accuracy_and_results(path):
    with open(path) as stream:
        results = json.load(stream)
    return results["train"]["test_accuracy"], results


def main():
    scratch, data, psbench, h5dump = sys.argv[1:5]
    mpiexec = sys.argv[5:]
    os.makedirs(scratch, exist_ok=True)
    checkpoint = os.path.join(scratch, "crash.h5")
    for stale in (checkpoint, checkpoint + ".tmp"):
        if os.path.exists(stale):
            os.remove(stale)
    train = mpiexec + [psbench, "train", "--data", data, "--model", "mlp:32", "--batch", "25", "--epochs", "3",
                       "--lr", "0.01", "--momentum", "0.5", "--seed", "11", "--quiet"]

    code, text = run(train + ["--out", os.path.join(scratch, "crashed.json"), "--checkpoint", checkpoint,
                              "--checkpoint-every", "40", "--inject-fault", f"crash:rank=2,step={CRASH_STEP}"])
    assert code != 0, f"the crashed job exited 0:\n{text}"
    assert f"rank 2 crashes at step {CRASH_STEP}" in text, text
    assert os.path.exists(checkpoint), f"no checkpoint after the crash:\n{text}"
    assert not os.path.exists(os.path.join(scratch, "crashed.json")), "a crashed run wrote results"

    assert h5dump_attribute(h5dump, checkpoint, "psbench_checkpoint_format") == 1
    step = h5dump_attribute(h5dump, checkpoint, "step")
    assert step > 0 and step % 40 == 0, f"checkpoint at step {step}, not a multiple of --checkpoint-every 40"
    full_run = 3 * (61 + 60)  # 3 epochs of 1501 and 1500 samples in batches of 25
    assert step < full_run, f"checkpoint at step {step}: the crashed run cannot have finished {full_run} steps"

    resumed_out = os.path.join(scratch, "resumed.json")
    code, text = run(train + ["--out", resumed_out, "--resume", checkpoint])
    assert code == 0, f"the resumed run failed (exit {code}):\n{text}"
    whole_out = os.path.join(scratch, "uninterrupted.json")
    code, text = run(train + ["--out", whole_out])
    assert code == 0, f"the uninterrupted run failed (exit {code}):\n{text}"

    resumed_accuracy, resumed = accuracy_and_results(resumed_out)
    whole_accuracy, whole = accuracy_and_results(whole_out)
    print(f"checkpoint at step {step}; test accuracy: resumed {resumed_accuracy:.4f}, "
          f"uninterrupted {whole_accuracy:.4f} (bar {ACCURACY_BAR})")
    assert whole_accuracy >= ACCURACY_BAR, f"the uninterrupted run missed the bar: {whole_accuracy}"
    assert resumed_accuracy >= ACCURACY_BAR, f"the resumed run missed the bar: {resumed_accuracy}"
    origin = resumed.get("resumed_from")
    assert origin is not None, "the resumed run's results do not say it was resumed"
    assert origin["file"] == checkpoint and origin["step"] == step, origin
    # The positions are server 0's view: every worker's steps up to them are exactly the checkpoint's step.
    per_epoch = [-(-entry["worker"]["samples"] // 25) for entry in resumed["per_rank"] if "worker" in entry]
    pushed = sum(e * n + s for e, s, n in zip(origin["worker_epochs"], origin["worker_steps"], per_epoch))
    assert pushed == step, f"positions {origin} with {per_epoch} steps per epoch add up to {pushed}, not {step}"
    crashed = origin["worker_epochs"][1] * per_epoch[1] + origin["worker_steps"][1]
    assert crashed < CRASH_STEP, f"the crashed worker (rank 2) resumes at its step {crashed}, past its crash"
    assert resumed["config"]["resume"] == checkpoint and whole["config"]["resume"] == "", resumed["config"]
    assert "resumed_from" not in whole
    # Every step of the resumed run reached the server once, and the run finished all 3 epochs.
    assert resumed["server"]["updates"] == resumed["train"]["steps"], resumed["server"]
    assert resumed["epochs"][-1]["epoch"] == 2, resumed["epochs"]
    print("checkpoint crash test passed")


if __name__ == "__main__":
    main()

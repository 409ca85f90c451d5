#!/usr/bin/env bash
# bench/run_all.sh --quick: every benchmark runs and writes the file docs/benchmarks.md describes, with its
# names (the last argument the byte count), counters and context keys; bad options fail with exit 2.
set -euo pipefail
root="$1"
build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if PSBENCH_BUILD="$build" "$root/bench/run_all.sh" --only nn,bogus >"$work/bad" 2>&1; then
  echo "an unknown benchmark was accepted"; exit 1
fi
grep -q "^psbench: error: --only: unknown benchmark 'bogus'" "$work/bad" || { cat "$work/bad"; exit 1; }
PSBENCH_BUILD="$build" PSBENCH_GIT_COMMIT=test-commit "$root/bench/run_all.sh" --quick --saturation-paths shared,messages --out "$work/out" \
  >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
python3 - "$work/out" <<'PY'
import json, os, sys
out = sys.argv[1]
keys = ["psbench_host", "psbench_cores", "psbench_cpu", "psbench_onednn_isa", "psbench_libraries", "psbench_git_commit"]

def gbench(name):
    doc = json.load(open(os.path.join(out, name + ".json")))
    for key in keys:
        assert isinstance(doc["context"].get(key), str) and doc["context"][key], (name, key, doc["context"])
    assert doc["context"]["psbench_git_commit"] == "test-commit", doc["context"]
    assert int(doc["context"]["psbench_cores"]) >= 1
    assert set(json.loads(doc["context"]["psbench_libraries"])) == {"psbench", "mpi", "hdf5", "onednn"}
    return {run["name"]: run for run in doc["benchmarks"]}

runs = gbench("push_pull")
for name in ["BM_LocalUpdate/4096", "BM_RawMpiExchange/4096", "BM_PushPull/path:0/4096", "BM_PushPull/path:1/4096"]:
    assert name in runs, (name, sorted(runs))
    assert runs[name]["bytes_per_second"] > 0, runs[name]
    assert runs[name]["time_unit"] == "us", runs[name]
for path in (0, 1):
    run = runs["BM_PushPull/path:%d/4096_median" % path]
    limit = max(runs["BM_RawMpiExchange/4096_median"]["real_time"], runs["BM_LocalUpdate/4096_median"]["real_time"])
    assert abs(run["vs_limit"] - limit / run["real_time"]) < 1e-6 * run["vs_limit"], (run, limit)
# 1-bit pushes of 1024 values (two columns of 512: 18 words each) against 4096 bytes, headers of 32.
assert runs["BM_PushPullOneBit/4096"]["bytes_per_second"] > 0, runs["BM_PushPullOneBit/4096"]
assert runs["BM_PushPullOneBit/4096"]["push_bytes"] == 32 + 36 * 4, runs["BM_PushPullOneBit/4096"]
assert runs["BM_PushPull/path:0/4096"]["push_bytes"] == 32 + 4096, runs["BM_PushPull/path:0/4096"]
# The allreduce among the run's ranks, which psbench model calibrate reads with its ranks counter.
allreduce = runs["BM_Allreduce/4096"]
assert allreduce["ranks"] >= 2 and allreduce["bytes_per_second"] > 0, allreduce
runs = gbench("server_update")
assert runs["BM_SgdUpdate/4096"]["bytes_per_second"] > 0 and runs["BM_Triad/4096"]["bytes_per_second"] > 0
assert runs["BM_OneBitQuantize/4096"]["bytes_per_second"] > 0 and runs["BM_OneBitDequantize/4096"]["bytes_per_second"] > 0
runs = gbench("nn")
assert runs["BM_TrainStepMlp/32"]["FLOP/s"] > 0 and runs["BM_TrainStepMlp/32"]["params"] == 535818
assert runs["BM_TrainStepMlp/32"]["flops_per_step"] > 0 and runs["BM_TrainStepMlp/32"]["samples/s"] > 0
assert runs["BM_OneDnnMatmul/128/784/512"]["FLOP/s"] > 0
assert runs["BM_EvaluateMlp/128"]["real_time"] > 0 and runs["BM_EvaluateMlp/128"]["samples/s"] > 0
# k ranks' steps at once beside one alone: one launch per k, the stretch over an even share of the cores.
cores = int(json.load(open(os.path.join(out, "nn.json")))["context"]["psbench_cores"])
for ranks in (1, 2):
    # A fixed iteration count: Google Benchmark names it /iterations:10 after the batch.
    run = gbench("shared_steps-k%d-r1" % ranks)["BM_TrainStepShared/64/iterations:10"]
    assert run["ranks"] == ranks and abs(run["ranks_per_core"] - ranks / cores) < 1e-9, run
    assert run["alone_step_s"] > 0 and run["stretch"] > 0, run
runs = gbench("data_io")
names = {name.split("/")[0] for name in runs}
assert {"BM_PosixRead", "BM_Hdf5SerialRead", "BM_Hdf5CollectiveRead"} <= names, names
for name, run in runs.items():
    if run["run_type"] == "iteration":
        assert int(name.split("/")[-1]) > 0 and run["bytes_per_second"] > 0, run
# The fresh-page chain: one file per launch and size, the first reader and the later ones under one reader's bytes.
for data in ("synth-2000", "synth-1000"):
    runs = gbench("data_io_fresh-%s-r1" % data)
    first = [name for name in runs if name.startswith("BM_Hdf5FreshFirstRead/")]
    later = [name for name in runs if name.startswith("BM_Hdf5FreshLaterRead/") and "_" not in name.split("/")[1]]
    assert len(first) >= 1 and len(later) == 1, sorted(runs)
    assert later[0].split("/")[1] == first[0].split("/")[1], (first, later)
    assert "BM_Hdf5SerialReadFreshBuffers/%d" % (2 * int(later[0].split("/")[1])) in runs, sorted(runs)
    assert runs[later[0]]["real_time"] > 0 and runs[later[0]]["vs_first"] > 0, runs[later[0]]
for name, path in (("server_saturation.json", "shared"), ("messages/server_saturation.json", "messages")):
    assert json.load(open(os.path.join(out, name)))["path"] == path, name
limit = json.load(open(os.path.join(out, "trainer_limit.json")))
assert limit["format"] == 1 and limit["benchmark"] == "trainer_limit" and limit["ranks"] == 2, limit
assert limit["context"]["git_commit"] == "test-commit", limit["context"]
for name in ("step", "local", "limit", "sync", "async", "async_pipeline"):
    spread = limit["samples_per_s"][name]
    assert 0 < spread["lowest"] <= spread["median"] <= spread["highest"], (name, spread)
for name in ("sync_to_limit", "async_to_limit", "async_pipeline_to_limit", "async_to_local", "local_to_step"):
    assert limit["ratios"][name] > 0, (name, limit["ratios"])
    spread = limit["ratios_per_repetition"][name]
    assert 0 < spread["lowest"] <= spread["median"] <= spread["highest"], (name, spread)
# The trainer's set-up at 1 server + W workers: one launch each, the part before the roles start inside the whole.
for workers in (1, 2, 3):
    runs = gbench("train_setup-w%d" % workers)
    run = runs["BM_TrainSetUp/%d" % workers]
    assert run["workers"] == workers and run["ranks"] == workers + 1 and run["servers"] == 1, run
    assert run["time_unit"] == "ms" and run["parameter_bytes"] == 4 * 535818, run
    assert 0 < run["set_up_run_s"] * 1e3 <= run["real_time"], run
    assert run["model_build_s"] > 0 and abs(run["vs_limit"] - run["model_build_s"] * 1e3 / run["real_time"]) < 1e-6, run
saturation = json.load(open(os.path.join(out, "server_saturation.json")))
assert saturation["format"] == 1 and saturation["benchmark"] == "server_saturation"
assert "compute is emulated" in saturation["note"]
for key in ["host", "cores", "cpu", "onednn_isa", "libraries", "git_commit", "date"]:
    assert key in saturation["context"], key
assert [run["servers"] for run in saturation["runs"]] == [1, 2], saturation["runs"]
for run in saturation["runs"]:
    assert run["parameters"] == 4096 and run["think_us"] == 200
    assert run["service_us"] > 0 and run["knee_clients"] in (1, 2) and run["knee_model"] >= 1
    assert [p["clients"] for p in run["points"]] == [1, 2]
    for p in run["points"]:
        assert p["updates_per_s"] > 0 and 0 < p["utilization"] <= 1 and p["response_us"] > 0, p
        assert p["queue_length"] > 0, p
PY
echo ok

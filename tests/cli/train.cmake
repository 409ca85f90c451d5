# End-to-end checks of `psbench train`: a small run through mpiexec, and bad input that must end every rank
# with one "psbench: error:" line and exit code 2, never a hang.
set(train_cli_dir ${CMAKE_CURRENT_BINARY_DIR}/train_cli)
set(train_cli_data ${train_cli_dir}/fashion_600.h5)
add_test(NAME cli.train.fixture_data
  COMMAND psbench data convert --limit 600 --out ${train_cli_data})
set_tests_properties(cli.train.fixture_data PROPERTIES TIMEOUT 120 LABELS cli FIXTURES_SETUP train_cli_data)

psbench_mpiexec_command(train_np2 2)
psbench_mpiexec_command(train_np3 3)
set(train_small --data ${train_cli_data} --model mlp:32 --batch 20 --epochs 2 --lr 0.01 --momentum 0.9)

add_test(NAME cli.train.async_1_server_2_workers
  COMMAND ${train_np3} $<TARGET_FILE:psbench> train ${train_small} --out ${train_cli_dir}/run.json
          --trace ${train_cli_dir}/run.trace.json)
set_tests_properties(cli.train.async_1_server_2_workers PROPERTIES TIMEOUT 120 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}"
  PASS_REGULAR_EXPRESSION "P = 25450 parameters.*epoch 2/2 .*samples/s.*phase +max s +share.*test accuracy: [0-9.]+%")

add_test(NAME cli.train.quiet_prints_nothing
  COMMAND ${train_np2} $<TARGET_FILE:psbench> train ${train_small} --mode sync --quiet --out ${train_cli_dir}/q.json)
set_tests_properties(cli.train.quiet_prints_nothing PROPERTIES TIMEOUT 120 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}"
  FAIL_REGULAR_EXPRESSION "epoch|phase|accuracy|psbench train")

add_test(NAME cli.train.local_without_mpirun
  COMMAND psbench train ${train_small} --mode local --out ${train_cli_dir}/local.json)
set_tests_properties(cli.train.local_without_mpirun PROPERTIES TIMEOUT 120 LABELS cli
  FIXTURES_REQUIRED train_cli_data
  PASS_REGULAR_EXPRESSION "epoch 2/2 .*test acc [0-9.]+%.*test accuracy: [0-9.]+%")

# train_cli_error(NAME LAUNCHER-VAR EXPECTED-REGEX ARG...): one error line, exit code 2.
function(train_cli_error name launcher expected)
  psbench_cli_error(train train_cli_data ${name} ${launcher} "${expected}" ${ARGN})
endfunction()

set(no_launcher "")
set(train_out --out ${train_cli_dir}/bad.json)
train_cli_error(servers_not_below_ranks train_np2 "--servers 2 must be below the number of ranks \\(2\\)"
  ${train_small} --servers 2 ${train_out})
train_cli_error(async_needs_two_ranks no_launcher "--mode async needs at least 2 ranks"
  ${train_small} ${train_out})
train_cli_error(unknown_model_spec train_np2 "model spec 'resnet:50'"
  --data ${train_cli_data} --model resnet:50 ${train_out})
train_cli_error(batch_larger_than_partition train_np3 "--batch 301 is larger than worker 0's partition of 300"
  --data ${train_cli_data} --model mlp:32 --batch 301 ${train_out})
train_cli_error(zero_batch train_np2 "--batch must be positive" --data ${train_cli_data} --model mlp:32
  --batch 0 ${train_out})
train_cli_error(negative_epochs train_np2 "--epochs must be positive" --data ${train_cli_data} --model mlp:32
  --epochs -1 ${train_out})
train_cli_error(zero_lr train_np2 "--lr must be a positive number" --data ${train_cli_data} --model mlp:32
  --lr 0 ${train_out})
train_cli_error(negative_lr train_np2 "--lr must be a positive number" --data ${train_cli_data} --model mlp:32
  --lr -0.5 ${train_out})
train_cli_error(unknown_mode train_np2 "--mode" --data ${train_cli_data} --model mlp:32 --mode ring ${train_out})
train_cli_error(unknown_io_mode train_np2 "--io 'posix' is not an I/O mode" --data ${train_cli_data} --model mlp:32
  --io posix ${train_out})
train_cli_error(unknown_intra_node train_np2 "--intra-node" --data ${train_cli_data} --model mlp:32 --intra-node tcp
  ${train_out})
train_cli_error(zero_bucket_bytes train_np2 "--bucket-bytes must be at least 4 \\(one float\\), got 0"
  ${train_small} --mode sync --bucket-bytes 0 ${train_out})
train_cli_error(bucket_bytes_outside_sync train_np2 "--bucket-bytes applies to --mode sync only"
  ${train_small} --bucket-bytes 65536 ${train_out})
train_cli_error(pipeline_in_local_mode no_launcher "--pipeline applies to --mode async only"
  ${train_small} --mode local --pipeline ${train_out})
train_cli_error(pipeline_in_sync_mode train_np2 "--pipeline applies to --mode async only"
  ${train_small} --mode sync --pipeline ${train_out})
train_cli_error(negative_staleness train_np2 "--staleness must be 0 or more clocks, got -1"
  ${train_small} --staleness -1 ${train_out})
train_cli_error(staleness_in_sync_mode train_np2 "--staleness applies to --mode async only"
  ${train_small} --mode sync --staleness 2 ${train_out})
train_cli_error(negative_delay_compensation train_np2 "--delay-compensation must be a finite lambda of 0 or more, got -0.04"
  ${train_small} --delay-compensation -0.04 ${train_out})
train_cli_error(delay_compensation_in_sync_mode train_np2 "--delay-compensation applies to --mode async only"
  ${train_small} --mode sync --delay-compensation 0.04 ${train_out})
train_cli_error(unknown_compress train_np2 "--compress: twobit is not one of: none, onebit"
  ${train_small} --mode sync --compress twobit ${train_out})
train_cli_error(no_error_feedback_without_compress train_np2
  "--no-error-feedback applies to --compress onebit only" ${train_small} --mode sync --no-error-feedback ${train_out})
train_cli_error(compress_in_local_mode no_launcher "--compress onebit compresses what ranks exchange, and --mode local"
  ${train_small} --mode local --compress onebit ${train_out})
train_cli_error(rma_in_sync_mode train_np2 "rma \\(--intra-node, --inter-node\\) is how workers reach parameter servers"
  ${train_small} --mode sync --inter-node rma ${train_out})
train_cli_error(unknown_inter_node train_np2 "--inter-node: window is not one of: messages, rma"
  ${train_small} --inter-node window ${train_out})
# Where the MPI library has no one-sided component (Open MPI with every osc component left out), a run that asks
# for RMA ends before training, on every rank, with one line naming what is missing, well inside 30 s.
if(PSBENCH_MPIEXEC_FLAVOR STREQUAL "openmpi")
  train_cli_error(rma_without_one_sided_component train_np3
    "rma \\(--intra-node or --inter-node\\) needs MPI one-sided communication, and MPI_Win_allocate failed"
    ${train_small} --intra-node rma ${train_out})
  set_property(TEST cli.train.rma_without_one_sided_component APPEND PROPERTY ENVIRONMENT
    "OMPI_MCA_osc=^sm,rdma,ucx,pt2pt,monitoring")
  set_tests_properties(cli.train.rma_without_one_sided_component PROPERTIES TIMEOUT 30)
endif()
train_cli_error(compress_with_bucket_bytes train_np2 "--bucket-bytes sets the buckets of the float allreduce"
  ${train_small} --mode sync --compress onebit --bucket-bytes 4096 ${train_out})
# W copies of a shard of 1.1e12 values (4.4 TB each) fit on no node: refused before training, on every rank.
train_cli_error(delay_compensation_beyond_memory train_np3
  "--delay-compensation: parameter server 0 needs .* MiB for 2 copies of its .*-value shard .* available \\(MemAvailable\\)"
  --data ${train_cli_data} --model mlp:1048576,1048576 --delay-compensation 0.04 ${train_out})
train_cli_error(block_samples_below_one_batch train_np2
  "--block-samples 19 is below one batch per worker \\(--batch 20\\)" ${train_small} --mode bmuf --block-samples 19
  ${train_out})
train_cli_error(bmuf_with_servers train_np2 "--servers applies to --mode async only: --mode bmuf has no parameter server"
  ${train_small} --mode bmuf --servers 1 ${train_out})
train_cli_error(average_with_servers train_np3
  "--servers applies to --mode async only: --mode average has no parameter server"
  ${train_small} --mode average --servers 2 ${train_out})
train_cli_error(block_momentum_of_one train_np2 "--block-momentum must lie in \\[0, 1\\), got 1.000000"
  ${train_small} --mode bmuf --block-momentum 1 ${train_out})
train_cli_error(negative_block_momentum train_np2 "--block-momentum must lie in \\[0, 1\\), got -0.100000"
  ${train_small} --mode bmuf --block-momentum -0.1 ${train_out})
train_cli_error(block_samples_in_sync_mode train_np2 "--block-samples applies to --mode bmuf and --mode average only"
  ${train_small} --mode sync --block-samples 400 ${train_out})
train_cli_error(block_momentum_in_average_mode train_np2 "--block-momentum applies to --mode bmuf only"
  ${train_small} --mode average --block-momentum 0.5 ${train_out})
train_cli_error(zero_block_lr train_np2 "--block-lr must be a positive number, got 0"
  ${train_small} --mode bmuf --block-lr 0 ${train_out})
train_cli_error(nesterov_neither_on_nor_off train_np2 "--nesterov takes on or off, got 'yes'"
  ${train_small} --mode bmuf --nesterov yes ${train_out})
train_cli_error(bmuf_with_checkpoint train_np2 "--checkpoint and --resume apply to --mode async, sync and local"
  ${train_small} --mode bmuf --checkpoint ${train_cli_dir}/bmuf.h5 ${train_out})
add_test(NAME cli.train.bmuf_prints_bytes_per_step
  COMMAND ${train_np2} $<TARGET_FILE:psbench> train ${train_small} --mode bmuf --block-samples 100
          --out ${train_cli_dir}/bmuf.json)
set_tests_properties(cli.train.bmuf_prints_bytes_per_step PROPERTIES TIMEOUT 120 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}"
  PASS_REGULAR_EXPRESSION "psbench train: bmuf, 2 worker\\(s\\).*exchange: [0-9]+ bytes sent, [0-9]+ received per step and worker \\(2 worker\\(s\\)\\)")
train_cli_error(zero_eval_every train_np2 "--eval-every must be a positive number of steps, got 0"
  ${train_small} --eval-every 0 ${train_out})
train_cli_error(target_above_one train_np2 "--target-accuracy must lie in \\(0, 1\\], got 1.5"
  ${train_small} --eval-every 10 --target-accuracy 1.5 ${train_out})
train_cli_error(target_without_eval_every train_np2 "--target-accuracy needs --eval-every N"
  ${train_small} --target-accuracy 0.8 ${train_out})
train_cli_error(stop_without_target no_launcher "--stop-at-target needs --target-accuracy A"
  ${train_small} --mode local --eval-every 10 --stop-at-target ${train_out})
add_test(NAME cli.train.sync_buckets
  COMMAND ${train_np2} $<TARGET_FILE:psbench> train ${train_small} --mode sync --bucket-bytes 4096 --quiet
          --out ${train_cli_dir}/buckets.json)
set_tests_properties(cli.train.sync_buckets PROPERTIES TIMEOUT 120 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}")
add_test(NAME cli.train.async_pipeline
  COMMAND ${train_np2} $<TARGET_FILE:psbench> train ${train_small} --pipeline --quiet --out ${train_cli_dir}/pipe.json)
set_tests_properties(cli.train.async_pipeline PROPERTIES TIMEOUT 120 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}")
# 1-bit SGD in async mode on every transport, with and without the pipeline: no combination is refused for a
# transport's sake.
foreach(transport shared-memory messages rma)
  foreach(pipeline "" --pipeline)
    set(name async_onebit_${transport}${pipeline})
    string(REPLACE "--" "_" name "${name}")
    add_test(NAME cli.train.${name}
      COMMAND ${train_np3} $<TARGET_FILE:psbench> train ${train_small} --compress onebit --intra-node ${transport}
              ${pipeline} --out ${train_cli_dir}/${name}.json)
    set_tests_properties(cli.train.${name} PROPERTIES TIMEOUT 120 LABELS "cli;mpi" PROCESSORS 2
      FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}"
      PASS_REGULAR_EXPRESSION "epoch 2/2 .*test accuracy: [0-9.]+%")
  endforeach()
endforeach()

# A diverging run (--lr 1e9) ends on every rank within seconds with exit code 2, one error line naming the
# rank, the step, the loss and what to try, and no results file.
set(diverge_args --data ${train_cli_data} --model mlp:32 --batch 20 --epochs 2 --lr 1e9)
set(diverge_error "the training loss became (NaN|inf|-inf) on rank [0-9]+ \\(worker [0-9]+\\), step [0-9]+ \\(epoch 1 of 2\\): the run diverged. try a lower --lr \\(now 1e\\+09\\) or --momentum \\(now 0\\.9\\). or --warmup-steps")
function(train_cli_divergence name launcher)
  set(out ${train_cli_dir}/diverged_${name}.json)
  add_test(NAME cli.train.diverged_${name}
    COMMAND ${CMAKE_COMMAND} -DPSBENCH=$<TARGET_FILE:psbench> "-DENV_PREFIX=${${launcher}}"
            "-DARGS=train;${diverge_args};${ARGN};--out;${out}" -DEXPECT_CODE=2 "-DEXPECT_ERROR=${diverge_error}"
            -DNO_FILE=${out} -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure_without_file.cmake)
  set_tests_properties(cli.train.diverged_${name} PROPERTIES TIMEOUT 30 LABELS "cli;mpi" PROCESSORS 2
    FIXTURES_REQUIRED train_cli_data ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}")
endfunction()
train_cli_divergence(async_3_ranks train_np3 --mode async)
train_cli_divergence(async_3_ranks_messages train_np3 --mode async --intra-node messages)
train_cli_divergence(async_3_ranks_rma train_np3 --mode async --intra-node rma)
train_cli_divergence(sync_2_ranks train_np2 --mode sync)
train_cli_divergence(local no_launcher --mode local)

# A run that does not learn warns once, on stderr (even with --quiet), that its final loss is at chance level:
# at --lr 1 without momentum mlp:32 collapses to a constant output in 2 epochs (loss 2.3018 after 5, test
# accuracy 10%, on AVX2 and SSE4.1 alike) yet stays finite. A run that learns does not warn
# (cli.train.local_without_mpirun).
add_test(NAME cli.train.chance_level_warns
  COMMAND psbench train --data ${train_cli_data} --model mlp:32 --batch 20 --epochs 5 --lr 1 --momentum 0
          --mode local --quiet --out ${train_cli_dir}/chance.json)
set_tests_properties(cli.train.chance_level_warns PROPERTIES TIMEOUT 60 LABELS cli FIXTURES_REQUIRED train_cli_data
  PASS_REGULAR_EXPRESSION "psbench: warning: the final training loss [0-9.]+ is within 2% of ln 10 = 2\\.3026.*did not learn")
set_tests_properties(cli.train.local_without_mpirun PROPERTIES FAIL_REGULAR_EXPRESSION "warning")

# End-to-end checks of `psbench data`: convert, synth, inspect and load through the binary, and bad input
# that must end every rank with one "psbench: error:" line naming the file and the problem, exit code 2.
set(data_cli_dir ${CMAKE_CURRENT_BINARY_DIR}/data_cli)
psbench_mpiexec_command(data_np2 2)
psbench_mpiexec_command(data_np3 3)

add_test(NAME cli.data.fixtures COMMAND make_data_fixtures ${data_cli_dir})
set_tests_properties(cli.data.fixtures PROPERTIES TIMEOUT 60 LABELS cli FIXTURES_SETUP data_cli_fixtures)

add_test(NAME cli.data.convert_fashion_mnist
  COMMAND psbench data convert --limit 500 --out ${data_cli_dir}/fashion_500.h5)
set_tests_properties(cli.data.convert_fashion_mnist PROPERTIES TIMEOUT 120 LABELS cli
  FIXTURES_SETUP data_cli_fashion PASS_REGULAR_EXPRESSION "wrote .*fashion_500.h5: 500 training and 500 test samples")

string(CONCAT inspect_expected
  "class_names = \\[\"T-shirt/top\".*mean = \\[0\\.[0-9]+\\].*num_classes = 10.*source = \"Fashion-MNIST"
  ".*std = \\[0\\.[0-9]+\\].*/test/images: uint8 \\[500, 1, 28, 28\\].*chunked \\[500, 1, 28, 28\\]"
  ".*/train/labels: uint8 \\[500\\].*train: 500 samples of 1x28x28 uint8, 10 classes.*layout: ok")
add_test(NAME cli.data.inspect_shows_shapes_chunks_and_attributes
  COMMAND psbench data inspect ${data_cli_dir}/fashion_500.h5)
set_tests_properties(cli.data.inspect_shows_shapes_chunks_and_attributes PROPERTIES TIMEOUT 60 LABELS cli
  FIXTURES_REQUIRED data_cli_fashion PASS_REGULAR_EXPRESSION "${inspect_expected}")

add_test(NAME cli.data.synth
  COMMAND psbench data synth --samples 240 --test-samples 30 --shape 3,8,8 --classes 4 --seed 11
          --out ${data_cli_dir}/synth.h5)
set_tests_properties(cli.data.synth PROPERTIES TIMEOUT 60 LABELS cli FIXTURES_SETUP data_cli_synth
  PASS_REGULAR_EXPRESSION "240 training and 30 test samples of 3x8x8 uint8, 4 classes, seed 11")

add_test(NAME cli.data.inspect_synth COMMAND psbench data inspect ${data_cli_dir}/synth.h5)
set_tests_properties(cli.data.inspect_synth PROPERTIES TIMEOUT 60 LABELS cli FIXTURES_REQUIRED data_cli_synth
  PASS_REGULAR_EXPRESSION
  "mean = \\[[0-9.]+, [0-9.]+, [0-9.]+\\].*/train/images: uint8 \\[240, 3, 8, 8\\].*layout: ok")

string(CONCAT parallel_expected "mode: parallel\\+partition on 3 readers, cold cache, transfer: chunk-collective"
  ", independent MPI-IO \\(collective: yes\\).*rank 2: samples 160\\.\\.240")
add_test(NAME cli.data.load_parallel_np3
  COMMAND ${data_np3} $<TARGET_FILE:psbench> data load ${data_cli_dir}/synth.h5 --io parallel --cold-cache)
set_tests_properties(cli.data.load_parallel_np3 PROPERTIES TIMEOUT 60 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED data_cli_synth ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}"
  PASS_REGULAR_EXPRESSION "${parallel_expected}")

add_test(NAME cli.data.load_sequential_np2
  COMMAND ${data_np2} $<TARGET_FILE:psbench> data load ${data_cli_dir}/synth.h5)
set_tests_properties(cli.data.load_sequential_np2 PROPERTIES TIMEOUT 60 LABELS "cli;mpi" PROCESSORS 2
  FIXTURES_REQUIRED data_cli_synth ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}"
  PASS_REGULAR_EXPRESSION
  "sequential\\+whole on 2 readers, warm cache.*serial.*rank 1: samples 120\\.\\.240, read [0-9.]+ s \\(on a core [0-9.]+ s, waiting for one [0-9.]+ s, [0-9]+ page faults, 0 major\\).*46\\.3 kB")

# data_cli_error(NAME LAUNCHER-VAR EXPECTED-REGEX ARG...): one error line, exit code 2, no hang.
function(data_cli_error name launcher expected)
  psbench_cli_error(data data_cli_fixtures ${name} ${launcher} "${expected}" ${ARGN})
endfunction()

set(no_launcher "")
set(d ${data_cli_dir})
data_cli_error(missing_file data_np2 "'${d}/absent.h5': no such file" load ${d}/absent.h5 --io parallel)
data_cli_error(inspect_missing_file no_launcher "'${d}/absent.h5': no such file" inspect ${d}/absent.h5)
# A superblock whose driver information block claims 2.9 GB of a 270-byte file (a libFuzzer finding: HDF5 1.10
# would allocate and fill that much before noticing) is refused before HDF5 reads it, by inspect and by load.
set(oversized_driver ${PROJECT_SOURCE_DIR}/fuzz/seeds/fuzz_hdf5_layout/oom_driver_block_claims_2_9_gb)
data_cli_error(oversized_driver_block no_launcher "driver information block claims 2902458368 bytes at offset 116, past the end of the 270-byte file"
  inspect ${oversized_driver})
data_cli_error(oversized_driver_block_load data_np2 "driver information block claims 2902458368 bytes"
  load ${oversized_driver} --io parallel)
# The same block's 16-byte header cut off by the end of a 128-byte file (found by libFuzzer): HDF5 read the
# 4 bytes of its size that were there (4,294,967,292) and allocated 4 GB.
set(cut_off_driver ${PROJECT_SOURCE_DIR}/fuzz/seeds/fuzz_hdf5_layout/oom_driver_header_cut_off_by_eof)
data_cli_error(cut_off_driver_block no_launcher
  "driver information block at offset 116 does not fit in the 128-byte file" inspect ${cut_off_driver})
data_cli_error(not_hdf5 no_launcher "'${d}/not_hdf5.h5': not an HDF5 file" inspect ${d}/not_hdf5.h5)
data_cli_error(missing_dataset data_np2 "'${d}/missing_labels.h5': has no dataset '/train/labels'"
  load ${d}/missing_labels.h5)
data_cli_error(count_mismatch no_launcher "/train/images holds 10 samples but /train/labels holds 9 labels"
  load ${d}/count_mismatch.h5)
data_cli_error(labels_out_of_range data_np2
  "'${d}/label_out_of_range.h5': /train/labels\\[9\\] is 5, outside \\[0, 5\\)"
  load ${d}/label_out_of_range.h5 --io parallel)
data_cli_error(inspect_labels_out_of_range no_launcher "/train/labels\\[9\\] is 5"
  inspect ${d}/label_out_of_range.h5)
data_cli_error(unsupported_type data_np2 "'${d}/unsupported_type.h5': /train/images has unsupported type int16"
  load ${d}/unsupported_type.h5 --io parallel)
data_cli_error(truncated_gzip no_launcher "train-images-idx3-ubyte.gz': truncated or corrupt gzip stream"
  convert --from ${d}/idx_truncated_gzip --out ${d}/never.h5)
data_cli_error(truncated_idx no_launcher
  "train-images-idx3-ubyte.gz': truncated IDX file: the header promises 15680 items"
  convert --from ${d}/idx_truncated_items --out ${d}/never.h5)
data_cli_error(bad_idx_magic no_launcher "train-images-idx3-ubyte.gz': bad IDX magic number"
  convert --from ${d}/idx_bad_magic --out ${d}/never.h5)
data_cli_error(more_workers_than_samples data_np3
  "'${d}/tiny.h5': /train/images holds 2 samples, fewer than the 3 workers" load ${d}/tiny.h5 --io sequential)
data_cli_error(more_workers_than_samples_parallel data_np3 "holds 2 samples, fewer than the 3 workers"
  load ${d}/tiny.h5 --io parallel)
data_cli_error(bad_shape no_launcher "--shape '1,2' is not C,H,W" synth --samples 4 --shape 1,2 --classes 2
  --out ${d}/never.h5)
data_cli_error(bad_io_mode data_np2 "--io 'posix' is not an I/O mode" load ${d}/tiny.h5 --io posix)
data_cli_error(bad_dtype no_launcher "--dtype 'float16' is not a stored type"
  convert --from ${d}/idx_ok --dtype float16 --out ${d}/never.h5)

# A float32 file whose training images are all NaN (valid layout and attributes otherwise): inspect counts
# the bad samples, the loader names the first, and training ends at once with exit 2 and no results file.
set(nan_file ${d}/nan_images.h5)
data_cli_error(inspect_nan_images no_launcher
  "'${nan_file}': /train/images holds 40 samples with NaN or infinite values, the first /train/images\\[0\\]"
  inspect ${nan_file})
data_cli_error(load_nan_images data_np2 "'${nan_file}': /train/images\\[0\\] \\(sample 0\\) holds NaN or infinite"
  load ${nan_file} --io parallel)

# data_cli_train_error(NAME LAUNCHER-VAR ARG...): `psbench train` on the NaN file exits 2 within 30 s with one
# error line naming its first sample, and writes no results file.
function(data_cli_train_error name launcher)
  set(out ${data_cli_dir}/${name}.json)
  add_test(NAME cli.data.${name}
    COMMAND ${CMAKE_COMMAND} -DPSBENCH=$<TARGET_FILE:psbench> "-DENV_PREFIX=${${launcher}}"
            "-DARGS=train;--data;${nan_file};--model;mlp:8;--batch;4;--epochs;1;--out;${out};${ARGN}"
            -DEXPECT_CODE=2 "-DEXPECT_ERROR='${nan_file}': /train/images\\[0\\] \\(sample 0\\) holds NaN"
            -DNO_FILE=${out} -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure_without_file.cmake)
  set_tests_properties(cli.data.${name} PROPERTIES TIMEOUT 30 LABELS cli PROCESSORS 2
    FIXTURES_REQUIRED data_cli_fixtures ENVIRONMENT "${PSBENCH_MPI_TEST_ENV}")
endfunction()
data_cli_train_error(train_nan_images_local no_launcher --mode local)
data_cli_train_error(train_nan_images_async_np3 data_np3 --servers 1 --io parallel)

# End-to-end checks of `psbench model`: predict's three formats over a fixture calibration, and bad input
# (a missing file, a wrong format version, an empty list, a worker count of 0) that must end with one
# "psbench: error:" line naming the problem, exit code 2.
set(model_fixtures ${CMAKE_CURRENT_SOURCE_DIR}/model)
set(calib ${model_fixtures}/calib.json)
set(predict_args model predict --calib ${calib} --samples 60000 --batch 64)

add_test(NAME cli.model.predict_json COMMAND psbench ${predict_args} --workers 1-4 --servers 1,2 --kind mva --format json)
set_tests_properties(cli.model.predict_json PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\"format\": 1.*\"kind_order\": \\[.*\"ideal\",.*\"revised\",.*\"mva\",.*\"sim\".*\"inputs\".*\"ranks_per_node\": 0.*\"interval_coverage\": 0.8.*\"kind\": \"mva\".*\"total_s_interval\": \\[.*\"knee_workers\": [0-9.]+.*\"servers\": 2.*\"workers\": 4")

add_test(NAME cli.model.predict_csv COMMAND psbench ${predict_args} --workers 2^0-2^3 --kind all --format csv)
set_tests_properties(cli.model.predict_csv PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "^kind,workers,servers,io,read,init_io_s,compute_s,total_s,updates_per_s,samples_per_s,server_utilization,staleness_mean,knee_workers,evaluation_s,init_io_s_p10,init_io_s_p90,compute_s_p10,compute_s_p90,total_s_p10,total_s_p90\nideal,1,1,sequential,whole,.*\nsim,8,1,")

add_test(NAME cli.model.predict_table COMMAND psbench ${predict_args} --workers 4 --kind revised --io parallel)
set_tests_properties(cli.model.predict_table PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "kind +workers +servers +io +init_io_s.*\nrevised +4 +1 +parallel ")

# --io and --kind take lists: each I/O mode in the order given, its kinds in kind order, each once.
add_test(NAME cli.model.predict_lists
  COMMAND psbench ${predict_args} --workers 2 --io parallel,sequential --kind mva,ideal,mva --format csv)
set_tests_properties(cli.model.predict_lists PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "total_s_p90\nideal,2,1,parallel,partition,[^\n]*\nmva,2,1,parallel,partition,[^\n]*\nideal,2,1,sequential,whole,[^\n]*\nmva,2,1,sequential,whole,[^\n]*\n$")

# model_cli_error(NAME EXPECTED-REGEX ARG...): one error line, exit code 2.
function(model_cli_error name expected)
  add_test(NAME cli.model.${name}
    COMMAND ${CMAKE_COMMAND} -DPSBENCH=$<TARGET_FILE:psbench> "-DARGS=model;${ARGN}" -DEXPECT_CODE=2
            "-DEXPECT_ERROR=${expected}" -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.cmake)
  set_tests_properties(cli.model.${name} PROPERTIES TIMEOUT 60 LABELS cli)
endfunction()

model_cli_error(predict_missing_calib "calibration '/nonexistent/calib.json': no such file"
  predict --calib /nonexistent/calib.json --workers 4)
model_cli_error(predict_wrong_format "calibration '.*calib_format9.json' has format 9, this psbench reads format 1"
  predict --calib ${model_fixtures}/calib_format9.json --workers 4)
model_cli_error(predict_zero_workers "--workers '0' holds a count of 0, below 1" predict --calib ${calib} --workers 0)
model_cli_error(predict_empty_list "--servers is an empty list" predict --calib ${calib} --workers 4 --servers ,)
model_cli_error(predict_unknown_kind "--kind 'foo' is not one of: ideal, revised, mva, sim, all"
  predict --calib ${calib} --workers 4 --kind mva,foo)
model_cli_error(predict_empty_io "--io 'sequential,' holds an empty word" predict --calib ${calib} --workers 4 --io sequential,)
model_cli_error(predict_bad_platform "--platform 'rack:x:1': NODES 'x' is not a positive number"
  predict --calib ${calib} --workers 4 --platform rack:x:1)
model_cli_error(predict_unknown_model "model spec 'resnet' is not recognised"
  predict --calib ${calib} --workers 4 --model resnet)
model_cli_error(predict_compensated_without_its_fit "the calibration has no delay-compensated update"
  predict --calib ${calib} --workers 4 --delay-compensation)
model_cli_error(calibrate_missing_file "/nonexistent/nn.json" calibrate --bench /nonexistent/nn.json --out calib.json)
model_cli_error(validate_missing_run "/nonexistent/run.json" validate --calib ${calib} /nonexistent/run.json)
model_cli_error(validate_no_runs "give one or more results files" validate --calib ${calib})
model_cli_error(validate_max_mape_needs_kind "--max-mape needs one --kind" validate --calib ${calib} --max-mape 15 x.json)

# Every learner train has (--mode, --compress, --block-samples) over a calibration with the allreduce and the 1-bit
# kernels: the learners without servers predict S = 0 and leave sim out of `all`; what train refuses, predict
# refuses with train's words; a learner whose fit the calibration lacks, and sim for a learner without servers,
# are one error line.
set(learners_calib ${model_fixtures}/calib_learners.json)
set(learner_args model predict --calib ${learners_calib} --samples 60000 --batch 64 --workers 4)
add_test(NAME cli.model.predict_sync_csv COMMAND psbench ${learner_args} --mode sync --format csv)
set_tests_properties(cli.model.predict_sync_csv PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "^kind,workers,servers,[a-z0-9_,]+\nideal,4,0,[^\n]*\nrevised,4,0,[^\n]*\nmva,4,0,sequential,whole,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,0(\.0+)?,0(\.0+)?,,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\n$")
add_test(NAME cli.model.predict_sync_onebit COMMAND psbench ${learner_args} --mode sync --compress onebit --kind mva)
set_tests_properties(cli.model.predict_sync_onebit PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\nmva +4 +0 ")
add_test(NAME cli.model.predict_bmuf COMMAND psbench ${learner_args} --mode bmuf --block-samples 6400 --kind revised)
set_tests_properties(cli.model.predict_bmuf PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\nrevised +4 +0 ")
add_test(NAME cli.model.predict_average COMMAND psbench ${learner_args} --mode average --kind ideal)
set_tests_properties(cli.model.predict_average PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\nideal +4 +0 ")
add_test(NAME cli.model.predict_async_onebit
  COMMAND psbench ${learner_args} --compress onebit --servers 2 --kind all --platform rack:8:1 --ranks-per-node 1)
set_tests_properties(cli.model.predict_async_onebit PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\nmva +4 +2 [^\n]*\nsim +4 +2 ")
model_cli_error(predict_bmuf_onebit "--compress onebit compresses gradients, and --mode bmuf exchanges block deltas"
  predict --calib ${learners_calib} --workers 4 --mode bmuf --compress onebit)
model_cli_error(predict_sync_block "--block-samples applies to --mode bmuf and --mode average only"
  predict --calib ${learners_calib} --workers 4 --mode sync --block-samples 6400)
model_cli_error(predict_average_servers "--servers applies to --mode async only"
  predict --calib ${learners_calib} --workers 4 --mode average --servers 2)
model_cli_error(predict_local "--mode: local is not one of: async, average, bmuf, sync"
  predict --calib ${learners_calib} --workers 4 --mode local)
model_cli_error(predict_sync_sim "--kind sim simulates the parameter servers. protocol .--mode async. only"
  predict --calib ${learners_calib} --workers 4 --mode sync --kind sim)
model_cli_error(predict_sync_without_its_fit "the calibration has no allreduce time .BM_Allreduce. in push_pull.json"
  predict --calib ${calib} --workers 4 --mode sync)
model_cli_error(predict_onebit_without_its_fit "the calibration has no 1-bit quantization time"
  predict --calib ${calib} --workers 4 --compress onebit)
model_cli_error(plan_sync "model plan searches the parameter servers of --mode async"
  plan --calib ${learners_calib} --nodes 1 --mode sync)

# `psbench model saturation` over the report's hand-made saturation fixture: json output, and its bad input.
set(saturation_fixture ${PROJECT_SOURCE_DIR}/tests/report/fixtures/bench/server_saturation.json)
add_test(NAME cli.model.saturation_json COMMAND psbench model saturation --bench ${saturation_fixture} --kind mva
  --format json)
set_tests_properties(cli.model.saturation_json PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\"format\": 1.*\"times\": \"measured\".*\"inputs\": {.*\"servers\": 1.*\"overhead_us\": 10.0.*\"preemption\": 0.*\"measured\": {.*\"knee_clients\": 16.*\"kind\": \"mva\".*\"mape_percent\": [0-9.]+")
add_test(NAME cli.model.saturation_csv COMMAND psbench model saturation --bench ${saturation_fixture} --kind sim
  --clients 1,2 --format csv)
set_tests_properties(cli.model.saturation_csv PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "^kind,servers,parameters,think_us,service_us,idle_service_us,clients,updates_per_s,utilization,response_us,queue_length,measured_updates_per_s,error_percent\nsim,1,535818,2000,250,250,1,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,440,")
model_cli_error(saturation_missing_file "/nonexistent/server_saturation.json" saturation --bench /nonexistent/server_saturation.json)
model_cli_error(saturation_wrong_format "saturation_format9.json.*format"
  saturation --bench ${model_fixtures}/saturation_format9.json)
model_cli_error(saturation_not_a_saturation_file "calib.json: key .context. is missing" saturation --bench ${calib})
model_cli_error(saturation_empty_list "--clients is an empty list" saturation --bench ${saturation_fixture} --clients ,)
model_cli_error(saturation_zero_clients "--clients '0' holds a count of 0, below 1"
  saturation --bench ${saturation_fixture} --clients 0)
model_cli_error(saturation_unknown_kind "--kind 'revised' is not one of: mva, sim, all"
  saturation --bench ${saturation_fixture} --kind revised)
model_cli_error(saturation_unknown_cpu "--cpu 'all' is not one of: auto, off"
  saturation --bench ${saturation_fixture} --cpu all)

# `psbench model plan` over the published calibration: on Blue Waters with mlp:512,256 the study's set-up (one
# server, sequential I/O) is bound by the server beyond its knee, and the plan recommends more servers and
# parallel reads; on this machine it simulates what it recommends. Then its bad input.
set(published_calib ${PROJECT_SOURCE_DIR}/docs/results/calib.json)
set(plan_args model plan --calib ${published_calib} --model mlp:512,256 --batch 64 --samples 60000 --epochs 1)
add_test(NAME cli.model.plan_bluewaters_json
  COMMAND psbench ${plan_args} --platform bluewaters --nodes 64 --confirm 0 --format json)
set_tests_properties(cli.model.plan_bluewaters_json PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\"format\": 1.*\"nodes\": 64.*\"recommendation\": {[^}]*\"servers\": ([2-9]|[1-9][0-9]+),[^}]*\"io\": \"parallel\".*\"study\": {[^}]*\"servers\": 1,[^}]*\"io\": \"sequential\".*\"resource\": \"server-(cpu|link)\",[^}]*\"beyond_knee\": true")
add_test(NAME cli.model.plan_this_table COMMAND psbench ${plan_args} --nodes 1 --confirm 1)
set_tests_properties(cli.model.plan_this_table PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "choice +servers +workers +r +nodes +io +total_s.*\nbest +[12] +[1-3] +0 +1 +(sequential|parallel) +[0-9.]+ .* [0-9]+\\.[0-9]+  [a-z-]+\n.*\nRecommended: .*\\(sim [0-9.]+ s\\)\\.\nIts bottleneck: ")
model_cli_error(plan_wrong_format "calibration '.*calib_format9.json' has format 9, this psbench reads format 1"
  plan --calib ${model_fixtures}/calib_format9.json --nodes 4)
model_cli_error(plan_no_nodes "--nodes 0 is below 1: give the number of nodes you can use"
  plan --calib ${calib} --nodes 0 --platform bluewaters)
model_cli_error(plan_unknown_platform "--platform 'summit' is not one of: this, rack:"
  plan --calib ${calib} --nodes 4 --platform summit)
model_cli_error(plan_budget_beyond_this "--nodes 4: --platform this is one node" plan --calib ${calib} --nodes 4)
model_cli_error(plan_budget_beyond_the_rack "--nodes 9 is more than the 8 nodes of --platform rack:8:1"
  plan --calib ${calib} --nodes 9 --platform rack:8:1)

# validate over the published sweep's one-worker, one-server runs (2 configurations of 5 runs): each configuration's
# 80 % intervals, the count of medians inside them, and each kind's utilisation and staleness errors, in the json.
file(GLOB published_w1_s1 ${PROJECT_SOURCE_DIR}/docs/results/raw/sweep/fashion-mnist/w1-s1-*.json)
add_test(NAME cli.model.validate_interval_coverage_json
  COMMAND psbench model validate --calib ${published_calib} ${published_w1_s1} --kind mva --format json)
set_tests_properties(cli.model.validate_interval_coverage_json PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\"phases\": \\[[^]]*\"evaluation\"[^]]*\\].*\"interval\": {[^}]*\"mva\": {[^}]*\"total\": \\[.*\"interval_coverage\": {[^{]*\"coverage\": 0.8,[^{]*\"mva\": {[^{]*\"init_io\": {[^}]*\"inside\": [0-2],[^}]*\"count\": 2,.*\"quantity_errors\": {[^{]*\"mva\": {[^}]*\"utilization_mean_abs_diff\": [0-9.e-]+,")

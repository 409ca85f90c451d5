# End-to-end checks of `psbench model`: predict's three formats over a fixture calibration, and bad input
# (a missing file, a wrong format version, an empty list, a worker count of 0) that must end with one
# "psbench: error:" line naming the problem, exit code 2.
set(model_fixtures ${CMAKE_CURRENT_SOURCE_DIR}/model)
set(calib ${model_fixtures}/calib.json)
set(predict_args model predict --calib ${calib} --samples 60000 --batch 64)

add_test(NAME cli.model.predict_json COMMAND psbench ${predict_args} --workers 1-4 --servers 1,2 --kind mva --format json)
set_tests_properties(cli.model.predict_json PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "\"format\": 1.*\"kind_order\": \\[.*\"ideal\",.*\"revised\",.*\"mva\",.*\"sim\".*\"inputs\".*\"ranks_per_node\": 0.*\"kind\": \"mva\".*\"knee_workers\": [0-9.]+.*\"servers\": 2.*\"workers\": 4")

add_test(NAME cli.model.predict_csv COMMAND psbench ${predict_args} --workers 2^0-2^3 --kind all --format csv)
set_tests_properties(cli.model.predict_csv PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "^kind,workers,servers,init_io_s,compute_s,total_s,updates_per_s,samples_per_s,server_utilization,staleness_mean,knee_workers\nideal,1,1,.*\nsim,8,1,")

add_test(NAME cli.model.predict_table COMMAND psbench ${predict_args} --workers 4 --kind revised --io parallel)
set_tests_properties(cli.model.predict_table PROPERTIES TIMEOUT 60 LABELS cli PASS_REGULAR_EXPRESSION
  "kind +workers +servers +init_io_s.*\nrevised +4 +1 ")

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
model_cli_error(predict_bad_platform "--platform 'rack:x:1': NODES 'x' is not a positive number"
  predict --calib ${calib} --workers 4 --platform rack:x:1)
model_cli_error(predict_unknown_model "model spec 'resnet' is not recognised"
  predict --calib ${calib} --workers 4 --model resnet)
model_cli_error(calibrate_missing_file "/nonexistent/nn.json" calibrate --bench /nonexistent/nn.json --out calib.json)
model_cli_error(validate_missing_run "/nonexistent/run.json" validate --calib ${calib} /nonexistent/run.json)
model_cli_error(validate_no_runs "give one or more results files" validate --calib ${calib})
model_cli_error(validate_max_mape_needs_kind "--max-mape needs one --kind" validate --calib ${calib} --max-mape 15 x.json)

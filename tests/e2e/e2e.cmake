# lstmc_e2e(): one end-to-end test, registered on one line.
#
#   lstmc_e2e(NAME CASE_DIR WORK_SUBDIR [FLAG]...
#             [SCRIPT script] [ENV var=value...] [NO_ENV] [TIMEOUT seconds] [LABELS label...]
#             [SKIP_RETURN_CODE code] [WILL_FAIL] [FIXTURES_SETUP f] [FIXTURES_REQUIRED f])
#
# runs  SCRIPT LSTMC NPYCMP CASE_DIR WORK FLAG...  where SCRIPT is run_case.sh unless given
# (compile CASE_DIR/model.onnx with the flags, run it on its inputs, compare with its
# expected outputs). The other scripts of this folder that take the same four arguments
# (stream_case.sh, wave_case.sh, pocl_weights.sh, tsan.sh, ...) are named by SCRIPT.
#
# CASE_DIR   a case of tests/fixtures/cases, or an absolute folder (another case folder, or
#            the source tree for the scripts that find their own cases there)
# WORK       the calling folder's build folder /work/WORK_SUBDIR
# SCRIPT     a file name in tests/e2e, or an absolute path
# ENV        the environment is the caller's LSTMC_E2E_ENV (the generated code's CFLAGS, the
#            sanitizers), then these; NO_ENV leaves LSTMC_E2E_ENV out
# TIMEOUT    120 s unless given
# The flags come before the keywords; an empty flag list element is dropped.
function(lstmc_e2e name case_dir work_subdir)
  cmake_parse_arguments(E "NO_ENV;WILL_FAIL"
                        "SCRIPT;TIMEOUT;SKIP_RETURN_CODE;FIXTURES_SETUP;FIXTURES_REQUIRED"
                        "ENV;LABELS" ${ARGN})
  if(NOT IS_ABSOLUTE "${case_dir}")
    set(case_dir ${CMAKE_SOURCE_DIR}/tests/fixtures/cases/${case_dir})
  endif()
  if(NOT DEFINED E_SCRIPT)
    set(E_SCRIPT run_case.sh)
  endif()
  if(NOT IS_ABSOLUTE "${E_SCRIPT}")
    set(E_SCRIPT ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${E_SCRIPT})
  endif()
  add_test(NAME ${name}
           COMMAND ${E_SCRIPT} $<TARGET_FILE:lstmc> $<TARGET_FILE:npycmp> ${case_dir}
                   ${CMAKE_CURRENT_BINARY_DIR}/work/${work_subdir} ${E_UNPARSED_ARGUMENTS})
  set(env ${E_ENV})
  if(NOT E_NO_ENV)
    set(env ${LSTMC_E2E_ENV} ${E_ENV})
  endif()
  if(NOT "${env}" STREQUAL "")
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
  endif()
  if(NOT DEFINED E_TIMEOUT)
    set(E_TIMEOUT 120)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${E_TIMEOUT})
  if(DEFINED E_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${E_LABELS}")
  endif()
  if(DEFINED E_SKIP_RETURN_CODE)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE ${E_SKIP_RETURN_CODE})
  endif()
  if(E_WILL_FAIL)
    set_tests_properties(${name} PROPERTIES WILL_FAIL ON)
  endif()
  if(DEFINED E_FIXTURES_SETUP)
    set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${E_FIXTURES_SETUP})
  endif()
  if(DEFINED E_FIXTURES_REQUIRED)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${E_FIXTURES_REQUIRED})
  endif()
endfunction()

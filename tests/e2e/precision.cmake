# Reduced-precision weights (issue 12, docs/PRECISION.md): a subset of the fixture corpus per
# format against the ONNX Runtime references, with the format's tolerance (rtol = atol = 8 u,
# u the format's relative weight error: fp16 2^-11, bf16 2^-8, int8 1/254 of the row's max),
# the LLVM kernels on every case and the portable C kernels on a few; the schedules that
# have no reduced-precision kernels must refuse the option; the trained models' accuracy.
set(LSTMC_PREC_TOL_fp16 "4e-3 4e-3")
set(LSTMC_PREC_TOL_bf16 "3e-2 3e-2")
set(LSTMC_PREC_TOL_int8 "3e-2 3e-2")
# (a subset keeps CI time down: every cell, both directions, layout 1, sequence_lens, peepholes,
# a stacked PyTorch export; tests/unit/test_lowp.c checks the kernels themselves)
set(LSTMC_PREC_CASES lstm_everything_layout1 gru_bidir_lbr1_init rnn_bidir_seqlens
    pt_embed_lstm2_cls)
set(LSTMC_PREC_C_CASES gru_bidir_lbr1_init)
if(LSTMC_SANITIZE) # the C kernels under ASan/UBSan: one case per format keeps CI short
  set(LSTMC_PREC_CASES gru_bidir_lbr1_init)
endif()
foreach(fmt fp16 bf16 int8)
  set(_cases ${LSTMC_PREC_CASES})
  # hidden sizes that are no multiple of the register tile or vector width, so that the
  # panels of U and W (llvm/panels.c rec_relayout) have full tiles, vector and scalar tails:
  # a packing order the tiles do not read scrambles the weights far past the tolerance. One
  # format per element size (bf16 packs as fp16 does) keeps CI short.
  if(NOT LSTMC_SANITIZE AND NOT fmt STREQUAL "bf16")
    list(APPEND _cases lstm_tiles_h37 gru_tiles_h70)
  endif()
  foreach(c ${_cases})
    lstmc_e2e(e2e_weights_${fmt}_${c} ${c} W${fmt}_${c} --weights=${fmt} ${LSTMC_E2E_EXTRA}
              ENV "RUN_CASE_TOL=${LSTMC_PREC_TOL_${fmt}}")
  endforeach()
  if(NOT LSTMC_SANITIZE)
    foreach(c ${LSTMC_PREC_C_CASES})
      lstmc_e2e(e2e_weights_${fmt}_emitc_${c} ${c} WC${fmt}_${c} --weights=${fmt} --emit=c
                ENV "RUN_CASE_TOL=${LSTMC_PREC_TOL_${fmt}}")
    endforeach()
  endif()
endforeach()

# the reduced-precision panels cut by thread slices (--threads: the LLVM RnnRec and RnnProj
# kernels sliced by units and columns on the runtime pool), odd hidden sizes and 3 threads
# (uneven slices) too
if(NOT LSTMC_SANITIZE)
  foreach(fmt fp16 int8)
    foreach(c lstm_tiles_h37 lstm_everything_layout1 pt_embed_lstm2_cls)
      lstmc_e2e(e2e_weights_${fmt}_t2_${c} ${c} WT2${fmt}_${c} --weights=${fmt} --threads=2
                ENV "RUN_CASE_TOL=${LSTMC_PREC_TOL_${fmt}}")
    endforeach()
    lstmc_e2e(e2e_weights_${fmt}_t3_lstm_tiles_h37 lstm_tiles_h37 WT3${fmt} --weights=${fmt}
              --threads=3 ENV "RUN_CASE_TOL=${LSTMC_PREC_TOL_${fmt}}")
  endforeach()
endif()

# the option is not silently ignored: every format misses fp32's tolerance on some element
foreach(fmt fp16 bf16 int8)
  if(LSTMC_SANITIZE)
    break()
  endif()
  lstmc_e2e(e2e_weights_${fmt}_not_fp32 lstm_bidir_peephole_seqlens Wneg_${fmt} --weights=${fmt}
            NO_ENV WILL_FAIL)
endforeach()

# schedules without reduced-precision kernels refuse, naming the combination
set(_m ${FIX}/lstm_fwd_b1/model.onnx)
add_test(NAME e2e_weights_refuse_scheduleA
         COMMAND ${E2E}/expect_fail.sh 1 "--weights=fp16: schedule A" $<TARGET_FILE:lstmc> ${_m}
                 --weights=fp16 --disable-pass=split_gates -o ${WORK}/Wref_a --force)
add_test(NAME e2e_weights_refuse_unpacked
         COMMAND ${E2E}/expect_fail.sh 1 "not packed" $<TARGET_FILE:lstmc> ${_m} --weights=fp16
                 --disable-pass=fold_constants -o ${WORK}/Wref_u --force)
add_test(NAME e2e_weights_bad_value
         COMMAND ${E2E}/expect_fail.sh 2 "--weights takes fp32, fp16, bf16 or int8"
                 $<TARGET_FILE:lstmc> ${_m} --weights=fp8 -o ${WORK}/Wref_b)

# the trained models (tests/train): accuracy against the labels and agreement with fp32 for
# each format; har's fp32 accuracy must be PyTorch's 92.50 % (its REPORT.md). charlm's
# REPORT.md gives 55.14 % for the whole eval set but 56.48 % (what lstmc fp32 scores on the
# whole set) for positions 20..99, so its fp32 build is the reference rather than that figure.
if(NOT LSTMC_SANITIZE)
  foreach(m har charlm)
    set(_ref -)
    if(m STREQUAL "har")
      set(_ref 92.5)
    endif()
    add_test(NAME e2e_weights_train_${m}
             COMMAND /usr/bin/python3 ${E2E}/precision_train.py $<TARGET_FILE:lstmc>
                     ${CMAKE_SOURCE_DIR}/tests/train/${m} ${WORK}/Wtrain_${m} ${_ref})
    set_tests_properties(e2e_weights_train_${m} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()

# --activations=int8|int16 on the trained models (issue 22): calibrated on the first samples
# of the eval set, scored on the rest against the labels and the fp32 build; int16 may lose
# 0.3 points, int8 1 point
if(NOT LSTMC_SANITIZE)
  foreach(m har:40 charlm:10)
    string(REPLACE ":" ";" _mc ${m})
    list(GET _mc 0 _m)
    list(GET _mc 1 _ncal)
    add_test(NAME e2e_activations_train_${_m}
             COMMAND /usr/bin/python3 ${E2E}/precision_qact.py $<TARGET_FILE:lstmc>
                     ${CMAKE_SOURCE_DIR}/tests/train/${_m} ${WORK}/Atrain_${_m} ${_ncal})
    set_tests_properties(e2e_activations_train_${_m} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()

# issue 24: breakpoints and tissues on the integer LSTM (lstmc_rt_lstm_tissue_q) on the
# trained models: alpha 0 is the integer layer bit for bit, every link cut agrees with the
# float tissues of the same cuts
if(NOT LSTMC_SANITIZE)
  foreach(m har:40:20 charlm:10:6)
    string(REPLACE ":" ";" _mc ${m})
    list(GET _mc 0 _m)
    list(GET _mc 1 _ncal)
    list(GET _mc 2 _nrun)
    add_test(NAME e2e_activations_tissue_${_m}
             COMMAND /usr/bin/python3 ${E2E}/qact_tissue.py $<TARGET_FILE:lstmc>
                     ${CMAKE_SOURCE_DIR}/tests/train/${_m} ${WORK}/Atissue_${_m} ${_ncal} ${_nrun})
    set_tests_properties(e2e_activations_tissue_${_m} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()

# the LLVM kernel of the integer layer (codegen/llvm/rnnq.c) against the C reference, end to
# end: --emit=c and the default LLVM kernels give the same outputs bit for bit (issue 22)
if(NOT LSTMC_SANITIZE AND LSTMC_HAVE_LLVM)
  foreach(m har:40:40 charlm:10:10)
    string(REPLACE ":" ";" _mc ${m})
    list(GET _mc 0 _m)
    list(GET _mc 1 _ncal)
    list(GET _mc 2 _nrun)
    add_test(NAME e2e_activations_llvm_vs_c_${_m}
             COMMAND /usr/bin/python3 ${E2E}/qact_llvm.py $<TARGET_FILE:lstmc>
                     ${CMAKE_SOURCE_DIR}/tests/train/${_m} ${WORK}/Allvm_${_m} ${_ncal} ${_nrun})
    set_tests_properties(e2e_activations_llvm_vs_c_${_m} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
  # issue 23: a profile's parameters of the VNNI kernel (kernels.int) reach it, bit for bit
  add_test(NAME e2e_kernel_params_int
           COMMAND /usr/bin/python3 ${E2E}/kparams_int.py $<TARGET_FILE:lstmc>
                   ${CMAKE_SOURCE_DIR}/tests/train ${WORK}/Kint)
  set_tests_properties(e2e_kernel_params_int PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # the LLVM kernel sliced on two threads of the runtime pool
  add_test(NAME e2e_activations_llvm_vs_c_har_threads
           COMMAND /usr/bin/python3 ${E2E}/qact_llvm.py $<TARGET_FILE:lstmc>
                   ${CMAKE_SOURCE_DIR}/tests/train/har ${WORK}/Allvm_har_threads 40 10)
  set_tests_properties(e2e_activations_llvm_vs_c_har_threads PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 300 ENVIRONMENT "QACT_LLVM_FLAGS=--threads=2")
  # the same under qemu-user: AArch64's SDOT path (tests/cross/aarch64-dotprod.json, a
  # Cortex-A76) and NEON one (the built-in aarch64, no DotProd), and 32-bit Armv7 (the built-in
  # armv7: NEON, and the int64 recipe on register pairs, rshr_prod)
  foreach(t "aarch64|aarch64|aarch64-linux-gnu|qemu-aarch64"
            "dotprod|${CMAKE_SOURCE_DIR}/tests/cross/aarch64-dotprod.json|aarch64-linux-gnu|qemu-aarch64"
            "armv7|armv7|arm-linux-gnueabihf|qemu-arm")
    string(REPLACE "|" ";" _t "${t}")
    list(GET _t 0 _tn)
    list(GET _t 1 _tp)
    list(GET _t 2 _tc)
    list(GET _t 3 _tr)
    add_test(NAME cross_activations_llvm_vs_c_${_tn}_har
             COMMAND /usr/bin/python3 ${E2E}/qact_llvm.py $<TARGET_FILE:lstmc>
                     ${CMAKE_SOURCE_DIR}/tests/train/har ${WORK}/Across_${_tn} 20 6)
    set_tests_properties(cross_activations_llvm_vs_c_${_tn}_har PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 300
      ENVIRONMENT "CROSS_TARGET=${_tp};CROSS_CC=${_tc}-gcc;CROSS_AR=${_tc}-ar;CROSS_RUN=${_tr}")
  endforeach()
endif()

# the size report per format (docs/SIZE_REPORT.md "weights_per_format")
if(NOT LSTMC_SANITIZE)
  add_test(NAME e2e_weights_size_report
         COMMAND ${E2E}/precision_size.sh $<TARGET_FILE:lstmc>
                 ${CMAKE_SOURCE_DIR}/tests/train/har/model.onnx ${WORK}/Wsize)
  # issue 24: row skip (U_o, U_f,i,c) and tissues (the panels; with row skip U_o, U_f,i,c)
  add_test(NAME e2e_weights_size_report_drs
         COMMAND ${E2E}/precision_size.sh $<TARGET_FILE:lstmc>
                 ${CMAKE_SOURCE_DIR}/tests/train/har/model.onnx ${WORK}/WsizeD --alpha-intra=0.2)
  add_test(NAME e2e_weights_size_report_tissue
         COMMAND ${E2E}/precision_size.sh $<TARGET_FILE:lstmc>
                 ${CMAKE_SOURCE_DIR}/tests/train/har/model.onnx ${WORK}/WsizeT --alpha-inter=0)
  add_test(NAME e2e_weights_size_report_tissue_drs
         COMMAND ${E2E}/precision_size.sh $<TARGET_FILE:lstmc>
                 ${CMAKE_SOURCE_DIR}/tests/train/har/model.onnx ${WORK}/WsizeTD --alpha-inter=0
                 --alpha-intra=0.2)
endif()

# the OpenCL kernels on PoCL (codegen/opencl/opencl.c, docs/PRECISION.md "OpenCL"): a subset per
# format at the CPU tests' tolerance (a bidirectional peephole LSTM with sequence_lens, a
# bidirectional GRU whose h gate takes the second step kernel, two stacked layers between host
# calls); pocl_weights.sh also checks that the format reached the device (size report, the
# kernels' WFMT/RFMT, fewer bytes uploaded than fp32). The models stored in fp16, bf16 or
# int8 (QDQ) keep that precision on the device, at fp32's tolerance (their weights are exact).
if(LSTMC_E2E_OPENCL AND EXISTS ${FIX}/index.txt)
  set(LSTMC_POCL_PREC lstm_bidir_peephole_seqlens gru_bidir_lbr0_seqlens_zero
      pt_embed_lstm2_cls)
  set(LSTMC_POCL_PREC_FMTS fp16 bf16 int8)
  if(LSTMC_SANITIZE) # the host code and C fallback under ASan/UBSan: one case
    set(LSTMC_POCL_PREC gru_bidir_lbr0_seqlens_zero)
    set(LSTMC_POCL_PREC_FMTS int8)
  endif()
  foreach(fmt ${LSTMC_POCL_PREC_FMTS})
    foreach(c ${LSTMC_POCL_PREC})
      lstmc_e2e(e2e_pocl_weights_${fmt}_${c} ${c} PW${fmt}_${c} ${fmt} --weights=${fmt}
                ${LSTMC_E2E_EXTRA} SCRIPT pocl_weights.sh
                ENV ${LSTMC_POCL_ENV} "RUN_CASE_TOL=${LSTMC_PREC_TOL_${fmt}}" TIMEOUT 180
                LABELS pocl)
    endforeach()
  endforeach()
  if(NOT LSTMC_SANITIZE)
    foreach(pair lstm_w_fp16:fp16 lstm_w_bf16:bf16 lstm_w_qdq_channel:int8 lstm_w_qdq_u8:int8)
      string(REPLACE ":" ";" _p ${pair})
      list(GET _p 0 c)
      list(GET _p 1 fmt)
      lstmc_e2e(e2e_pocl_weights_model_${c} ${c} PWM_${c} ${fmt} SCRIPT pocl_weights.sh
                ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    endforeach()
  endif()
endif()

# The OpenCL path (issue 7) end to end on PoCL: `lstmc run --target=pocl` on the recurrent
# fixtures against the ONNX Runtime references, through run_case.sh like the host variants.
#
# PoCL compiles the kernels with LLVM at clBuildProgram (a second or more per case on a busy
# machine, more than the rest of the case), so CI runs a representative subset (label
# "pocl": every cell, direction, layout, sequence_lens, clip, peephole, input_forget,
# linear_before_reset, activations, a mixed host/device PyTorch model, the unsplit and the
# unpacked schedules); -DLSTMC_POCL_FULL=ON adds every other recurrent fixture (label
# "pocl_full"): ctest -L pocl.   docs/OPENCL.md
find_library(LSTMC_E2E_OPENCL OpenCL)
option(LSTMC_POCL_FULL "Run every recurrent fixture on PoCL (ctest -L pocl_full)" OFF)
if(LSTMC_E2E_OPENCL AND EXISTS ${FIX}/index.txt)
  # kernels compiled by PoCL are cached per build tree, never in $HOME (the environment of
  # the PoCL tests: LSTMC_E2E_ENV, then this)
  set(LSTMC_POCL_ENV "POCL_CACHE_DIR=${WORK}/pocl-cache")
  if(LSTMC_SANITIZE)
    # PoCL and its LLVM are not instrumented and keep allocations until exit
    list(APPEND LSTMC_POCL_ENV "ASAN_OPTIONS=detect_leaks=0")
  endif()
  set(LSTMC_POCL_CI
      lstm_bidir_peephole_seqlens lstm_everything_layout1 lstm_input_forget_peephole_clip
      lstm_act_hsig_stanh_affine lstm_out_yc_only lstm_bidir_seqlens_zero
      gru_bidir_lbr0_seqlens_zero gru_seqlens_reverse_lbr1 gru_act_softplus
      rnn_bidir_leaky_elu rnn_reverse_init pt_embed_lstm2_cls)
  if(LSTMC_SANITIZE) # a small subset under the sanitizers
    set(LSTMC_POCL_CI lstm_bidir_peephole_seqlens gru_bidir_lbr0_seqlens_zero)
  endif()
  file(STRINGS ${FIX}/index.txt _pocl_cases)
  foreach(c ${_pocl_cases})
    if(NOT c MATCHES "^(lstm|gru|rnn|pt)_|^op_lstm")
      continue()
    endif()
    list(FIND LSTMC_POCL_CI ${c} _in_ci)
    if(_in_ci LESS 0 AND NOT LSTMC_POCL_FULL)
      continue()
    endif()
    set(_labels pocl)
    if(_in_ci LESS 0)
      list(APPEND _labels pocl_full)
    endif()
    lstmc_e2e(e2e_pocl_${c} ${c} pocl_${c} --target=pocl ${LSTMC_E2E_EXTRA}
              ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS ${_labels})
  endforeach()
  if(NOT LSTMC_SANITIZE)
    # the other schedules on the device: A (unsplit, KP_RNN) and A+ with unpacked weights
    lstmc_e2e(e2e_pocl_scheduleA_lstm_bidir_peephole_seqlens lstm_bidir_peephole_seqlens poclA
              --target=pocl --disable-pass=split_gates ENV ${LSTMC_POCL_ENV} TIMEOUT 180
              LABELS pocl)
    lstmc_e2e(e2e_pocl_scheduleA_gru_bidir_lbr1_init gru_bidir_lbr1_init poclA2 --target=pocl
              --disable-pass=split_gates ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    lstmc_e2e(e2e_pocl_unpacked_gru_layout1 gru_layout1 poclU --target=pocl
              --disable-pass=fold_constants ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
  endif()
  # the tissue schedule on the device (kernels/tissue.cl): exact at alpha_inter = 0 against
  # the ONNX Runtime references (bidirectional + peepholes + sequence_lens; three stacked
  # batch-first layers), and at alpha_inter > 0 against the C tissue runtime
  set(LSTMC_POCL_TISSUE lstm_bidir_peephole_seqlens pt_lstm3_batchfirst)
  if(LSTMC_SANITIZE)
    set(LSTMC_POCL_TISSUE lstm_bidir_peephole_seqlens)
  endif()
  foreach(c ${LSTMC_POCL_TISSUE})
    lstmc_e2e(e2e_pocl_tissue_${c} ${c} poclT_${c} --target=pocl --alpha-inter=0
              ${LSTMC_E2E_EXTRA} ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
  endforeach()
  # dynamic row skip on the device (kernels/drs.cl): exact at alpha_intra = 0 (sequence_lens;
  # a bidirectional two-layer tagger), and at alpha_intra > 0 against the C DRS runtime
  if(NOT LSTMC_SANITIZE)
    foreach(c lstm_seqlens pt_bilstm_tagger)
      lstmc_e2e(e2e_pocl_drs_${c} ${c} poclD_${c} --target=pocl --alpha-intra=0
                ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    endforeach()
    # HAR at alpha_intra 0.2: 9 % of the U_f,i,c rows skipped on sample 3
    lstmc_e2e(pocl_drs_alpha ${CMAKE_SOURCE_DIR} pocl_drs_alpha 3 --alpha-intra=0.2
              SCRIPT pocl_alpha.sh ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    # issue 24: the same with U_o and U_f,i,c in int8 and fp16 (rnn.cl's LOWP_AT) against
    # the C DRS runtime in that format
    foreach(_w int8 fp16)
      lstmc_e2e(pocl_drs_alpha_${_w} ${CMAKE_SOURCE_DIR} pocl_drs_alpha_${_w} 3
                --alpha-intra=0.2 --weights=${_w} SCRIPT pocl_alpha.sh ENV ${LSTMC_POCL_ENV}
                TIMEOUT 180 LABELS pocl)
    endforeach()
  endif()
  if(NOT LSTMC_SANITIZE)
    # HAR at alpha_inter 510.5: about 7 % of the first layer's links cut (RESULTS.md, issue 5)
    lstmc_e2e(pocl_tissue_alpha ${CMAKE_SOURCE_DIR} pocl_tissue_alpha 3 --alpha-inter=510.5
              --calib=@CALIB@ SCRIPT pocl_alpha.sh ENV ${LSTMC_POCL_ENV} TIMEOUT 180
              LABELS pocl)
    # issue 24: tissues with int8 and fp16 U panels on the device (rnn.cl's LOWP_AT), and
    # DRS inside them with bf16 weights (that kernel runs on the CPU side of the target)
    foreach(_w int8 fp16)
      lstmc_e2e(pocl_tissue_alpha_${_w} ${CMAKE_SOURCE_DIR} pocl_tissue_alpha_${_w} 3
                --alpha-inter=510.5 --calib=@CALIB@ --weights=${_w} SCRIPT pocl_alpha.sh
                ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    endforeach()
    lstmc_e2e(pocl_tissue_drs_bf16 ${CMAKE_SOURCE_DIR} pocl_tissue_drs_bf16 3 --alpha-inter=510.5
              --alpha-intra=0.2 --calib=@CALIB@ --weights=bf16 SCRIPT pocl_alpha.sh
              ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    # issue 24: the calibrated relevances on the device (about a tenth of one layer's
    # links below these alphas: lstmc calibrate's percentiles on the eval set)
    lstmc_e2e(pocl_tissue_calibrated ${CMAKE_SOURCE_DIR} pocl_tissue_cal 3 --alpha-inter=151.9
              --calib=@CALIB@ --relevance=calibrated SCRIPT pocl_alpha.sh
              ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
    lstmc_e2e(pocl_tissue_sensitivity ${CMAKE_SOURCE_DIR} pocl_tissue_sens 3 --alpha-inter=0.55
              --calib=@CALIB@ --relevance=sensitivity SCRIPT pocl_alpha.sh
              ENV ${LSTMC_POCL_ENV} TIMEOUT 180 LABELS pocl)
  endif()
endif()

# the cost-model policy with G1 and the time loop on different sides (both directions)
if(LSTMC_E2E_OPENCL AND NOT LSTMC_SANITIZE AND EXISTS ${FIX}/index.txt)
  lstmc_e2e(pocl_model_policy ${FIX} pocl_model SCRIPT pocl_model.sh ENV ${LSTMC_POCL_ENV}
            TIMEOUT 180 LABELS pocl)
endif()

# the generated OpenCL library: no malloc in our code, a clean status without a device
if(LSTMC_E2E_OPENCL AND NOT LSTMC_SANITIZE)
  lstmc_e2e(generated_pocl_library pt_embed_lstm2_cls pocl_library SCRIPT pocl_library.sh
            NO_ENV ENV "POCL_CACHE_DIR=${WORK}/pocl-cache" TIMEOUT 180 LABELS pocl)
endif()

# `lstmc profile` writes a profile that compiles and runs (issue 7)
if(LSTMC_E2E_OPENCL AND NOT LSTMC_SANITIZE)
  lstmc_e2e(profile_pocl ${FIX} profile SCRIPT profile.sh ENV ${LSTMC_POCL_ENV} TIMEOUT 180
            LABELS pocl)
endif()

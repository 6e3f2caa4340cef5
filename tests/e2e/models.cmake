# --- issue 20: whole models -----------------------------------------------------------------
# The whole-model corpus (tests/fixtures/cases/models.txt, make_fixtures.py model_cases:
# PyTorch 1.13 exports with ONNX Runtime references cross-checked against PyTorch). Each model
# is compiled and run against its reference at rtol 1e-4 / atol 1e-5 (integers exact):
#   e2e_<m>            `lstmc run` on the host: the default LLVM kernels; under the
#                      sanitizers the portable C kernels (--emit=c), whose instrumentable
#                      kernels they are
#   cross_aarch64_<m>  cross-built for aarch64, run under qemu-aarch64 (run_case.sh)
#   cm4_<m>            on the Cortex-M4 example board under qemu-system-arm
#                      (cortex_m_model.sh), unless on LSTMC_MODELS_NOT_CORTEX_M
# (<m> is the case name, model_...; every one has the label `models`: ctest -L models). The
# cross and board runs skip (77) when their tools are missing (scripts/deps.sh).
#
# LSTMC_PENDING_MODELS is the ONE list of the models lstmc cannot compile yet, "name|what it
# fails on" (the ops lstmc refused on the day the model was added). A model on it gets only
# e2e_<m> (model_pending.sh): skipped, with the reason and lstmc's own messages, while
# lstmc refuses it (exit 1); FAILED as soon as lstmc compiles it, so the list cannot go
# stale: take the model off the list and every test above runs it.
set(LSTMC_PENDING_MODELS)
# lstmc options a model needs on every run: the fixture's batch for a symbolic one (`lstmc
# run` binds it from the data; the cross builds compile without data)
set(LSTMC_MODEL_FLAGS_model_learned_h0_expand --dim=batch=2)
# streaming (issue 20): the causal-convolution models (and model_gtcrn_block, whose
# convolutions run over frequency only, so per frame) through NAME_step in chunks, checked
# against the reference and bit for bit against NAME_run (stream_<m>, stream_case.sh); a
# look-ahead convolution refused, the reason naming its node ("name|node"). Registered once
# the model is off LSTMC_PENDING_MODELS. LSTMC_PENDING_STREAM_MODELS: models that compile but
# do not stream yet; their stream_<m> passes while lstmc refuses to stream them (any reason,
# printed) and fails once they stream: then take them off this list.
set(LSTMC_STREAM_MODELS model_causal_conv_lstm model_lstm_causal_conv model_dtln model_tcn_gru
    model_causal_crnn2d model_causal_conv_onnx_pads model_gtcrn_block)
set(LSTMC_STREAM_REFUSED_MODELS "model_lookahead_conv_lstm|/conv/Conv")
set(LSTMC_PENDING_STREAM_MODELS)
# models left off the Cortex-M4 board, "name|why" (none: every model fits its 4 MiB of RAM)
set(LSTMC_MODELS_NOT_CORTEX_M)

add_executable(cm_io ${E2E}/cortex_m_model/cm_io.c)
target_compile_options(cm_io PRIVATE ${LSTMC_WARNINGS})
target_link_libraries(cm_io PRIVATE lstmc_rt_npy lstmc_rt m)

if(EXISTS ${FIX}/models.txt)
  file(STRINGS ${FIX}/models.txt LSTMC_MODELS)
  set(_pending_names)
  foreach(p ${LSTMC_PENDING_MODELS})
    string(REPLACE "|" ";" p "${p}")
    list(GET p 0 _m)
    list(GET p 1 _why)
    if(NOT _m IN_LIST LSTMC_MODELS)
      message(FATAL_ERROR "LSTMC_PENDING_MODELS names ${_m}, which is not in ${FIX}/models.txt")
    endif()
    list(APPEND _pending_names ${_m})
    set(_pending_why_${_m} "${_why}")
  endforeach()
  set(_no_cm_names)
  foreach(p ${LSTMC_MODELS_NOT_CORTEX_M})
    string(REPLACE "|" ";" p "${p}")
    list(GET p 0 _m)
    list(APPEND _no_cm_names ${_m})
  endforeach()
  set(_aarch64_env "CROSS_TARGET=aarch64" "CROSS_CC=aarch64-linux-gnu-gcc"
      "CROSS_AR=aarch64-linux-gnu-ar" "CROSS_RUN=qemu-aarch64"
      "LSTMC_CFLAGS=-Wall -Werror -Wno-unused-function")
  foreach(m ${LSTMC_MODELS})
    set(_flags ${LSTMC_MODEL_FLAGS_${m}})
    if(m IN_LIST _pending_names)
      lstmc_e2e(e2e_${m} ${m} M_${m} ${_flags} SCRIPT model_pending.sh
                ENV "MODEL_PENDING=${_pending_why_${m}}" SKIP_RETURN_CODE 77 LABELS models)
      continue()
    endif()
    lstmc_e2e(e2e_${m} ${m} M_${m} ${_flags} ${LSTMC_E2E_EXTRA} LABELS models)
    if(NOT LSTMC_SANITIZE)
      lstmc_e2e(cross_aarch64_${m} ${m} MA_${m} ${_flags} NO_ENV ENV ${_aarch64_env}
                SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS models)
      if(m IN_LIST LSTMC_STREAM_MODELS)
        set(_refused)
        if(m IN_LIST LSTMC_PENDING_STREAM_MODELS)
          set(_refused ENV "STREAM_REFUSED=.")
        endif()
        lstmc_e2e(stream_${m} ${m} MS_${m} ${_flags} SCRIPT stream_case.sh ${_refused}
                  LABELS models)
        # the portable C kernels too: each path must sum a convolution's taps in one order
        lstmc_e2e(stream_emitc_${m} ${m} MSC_${m} ${_flags} --emit=c SCRIPT stream_case.sh
                  ${_refused} LABELS models)
      endif()
      foreach(p ${LSTMC_STREAM_REFUSED_MODELS})
        string(REPLACE "|" ";" p "${p}")
        list(GET p 0 _m)
        list(GET p 1 _why)
        if(_m STREQUAL m)
          lstmc_e2e(stream_refused_${m} ${m} MSR_${m} ${_flags} SCRIPT stream_case.sh
                    ENV "STREAM_REFUSED=${_why}" LABELS models)
        endif()
      endforeach()
      if(NOT m IN_LIST _no_cm_names)
        lstmc_e2e(cm4_${m} ${m} MM_${m} ${_flags} SCRIPT cortex_m_model.sh NO_ENV
                  ENV "CM_IO=$<TARGET_FILE:cm_io>" SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS models)
      endif()
    endif()
  endforeach()
endif()

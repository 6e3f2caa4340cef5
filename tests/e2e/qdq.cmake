# Issue 22: the QDQ models (cases/qdq.txt: QuantizeLinear / DequantizeLinear around the
# recurrent layers, int8 weights), against ONNX Runtime: in float (the model's own
# quantisation run as written; tol.txt: one step of the output grid) and with
# --activations=int8, the layers in integers on the model's scales (qdq.txt: three steps).
# The 16-bit cases (names with i16 / u16: INT16 / UINT16 activations) run --activations=int16
# (qdq.txt: the int16 recipe's error); their tests are named _int16_.
if(EXISTS ${FIX}/qdq.txt)
  file(STRINGS ${FIX}/qdq.txt LSTMC_QDQ_CASES)
  foreach(c ${LSTMC_QDQ_CASES})
    file(STRINGS ${FIX}/${c}/tol.txt _tol)
    file(STRINGS ${FIX}/${c}/qdq.txt _qtol)
    if(c MATCHES "_[iu]16")
      set(_a int16)
    else()
      set(_a int8)
    endif()
    # the model's quantisation run in float (under the sanitizers on four kinds of case, CI
    # time: the integer run below imports every case through the same instrumented code)
    if(NOT LSTMC_SANITIZE OR c MATCHES "^qdq_(lstm_i8_k9_h37|gru_i16_perchannel|lstm_fq_i8_perchannel|ort_static_lstm_gemm)$")
      lstmc_e2e(e2e_qdq_${c} ${c} Q_${c} ${LSTMC_E2E_EXTRA} ENV "RUN_CASE_TOL=${_tol}")
    endif()
    lstmc_e2e(e2e_qdq_${_a}_${c} ${c} QA_${c} --activations=${_a} ${LSTMC_E2E_EXTRA}
              ENV "RUN_CASE_TOL=${_qtol}")
    # the LLVM kernel bit for bit the C reference's integers (--emit=c, the ONNX order), on
    # one thread and sliced on two (on x86 VNNI, W and U laid out for the slices' row ranges,
    # codegen/llvm/panels.c rnnq_relayout): with the case above against ONNX Runtime, the C
    # kernel and the two-thread build are held to it too. Not under the sanitizers (CI time:
    # the plain case above covers the instrumented code).
    if(LSTMC_HAVE_LLVM AND NOT LSTMC_SANITIZE)
      lstmc_e2e(e2e_qdq_${_a}_llvm_vs_c_${c} ${c} QL_${c} --activations=${_a}
                SCRIPT llvm_vs_c_case.sh ENV "LLVM_VS_C_ALSO=--threads=2")
    endif()
    # streamed one step and mixed chunks at a time: bit for bit the whole sequence's
    # integers (the state is dequantised and quantised again exactly between steps)
    # (a bidirectional layer does not stream; under the sanitizers an LSTM and a GRU case
    # cover the instrumented code, CI time)
    if(NOT c MATCHES "bidir" AND (NOT LSTMC_SANITIZE OR c MATCHES "^qdq_(lstm_i8_k9|gru_i8)"))
      lstmc_e2e(e2e_qdq_${_a}_stream_${c} ${c} QS_${c} --activations=${_a} ${LSTMC_E2E_EXTRA}
                SCRIPT stream_case.sh ENV "RUN_CASE_TOL=${_qtol}")
    endif()
  endforeach()
endif()

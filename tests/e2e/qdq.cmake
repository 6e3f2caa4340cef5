# Issue 22: the QDQ models (cases/qdq.txt: QuantizeLinear / DequantizeLinear around the
# recurrent layers, int8 weights), against ONNX Runtime: in float (the model's own
# quantisation run as written; tol.txt: one step of the output grid) and with
# --activations=int8, the layers in integers on the model's scales (qdq.txt: three steps).
if(EXISTS ${FIX}/qdq.txt)
  file(STRINGS ${FIX}/qdq.txt LSTMC_QDQ_CASES)
  foreach(c ${LSTMC_QDQ_CASES})
    file(STRINGS ${FIX}/${c}/tol.txt _tol)
    file(STRINGS ${FIX}/${c}/qdq.txt _qtol)
    lstmc_e2e(e2e_qdq_${c} ${c} Q_${c} ${LSTMC_E2E_EXTRA} ENV "RUN_CASE_TOL=${_tol}")
    lstmc_e2e(e2e_qdq_int8_${c} ${c} QA_${c} --activations=int8 ${LSTMC_E2E_EXTRA}
              ENV "RUN_CASE_TOL=${_qtol}")
    # streamed one step and mixed chunks at a time: bit for bit the whole sequence's
    # integers (the state is dequantised and quantised again exactly between steps)
    if(NOT c MATCHES "bidir") # a bidirectional layer does not stream
      lstmc_e2e(e2e_qdq_int8_stream_${c} ${c} QS_${c} --activations=int8 ${LSTMC_E2E_EXTRA}
                SCRIPT stream_case.sh ENV "RUN_CASE_TOL=${_qtol}")
    endif()
  endforeach()
endif()

# issue 20, elt: the single-node fixtures of the element-wise, logical and generator ops
# (elt_*) through the portable C kernels
# too (--emit=c); the index loop in CMakeLists.txt runs each once with the default kernels,
# and the pt_elt_* exports with every schedule (--emit=c among them), as every pt_ case.
if(NOT LSTMC_SANITIZE AND EXISTS ${FIX}/index.txt)
  foreach(c ${LSTMC_CASES})
    if(c MATCHES "^elt_")
      lstmc_e2e(e2e_emitc_${c} ${c} C_${c} --emit=c)
    endif()
  endforeach()
endif()

# the refusals: every shape operand computed from a graph input's values named in one run,
# the PyTorch construct behind an unsupported op, and whether it is the only obstacle
add_test(NAME bad_elt_refusals
         COMMAND sh ${E2E}/elt_refusals.sh $<TARGET_FILE:lstmc> ${CMAKE_SOURCE_DIR}/tests/bad
                 ${CMAKE_CURRENT_BINARY_DIR}/bad_out/elt)
set_tests_properties(bad_elt_refusals PROPERTIES TIMEOUT 90
                     ENVIRONMENT "LSTMC_MEMORY_LIMIT=268435456;${LSTMC_E2E_ENV}")

# the PyTorch shape-subgraph exports (opsets 14 and 17) compiled (not run) with their dims
# given by --dim, at other sizes than the fixture's data: the subgraphs fold for whatever the
# dims are
if(EXISTS ${FIX}/pt_elt_expand_h0)
  foreach(spec "pt_elt_expand_h0:--dim=seq=9:--dim=batch=3"
               "pt_elt_mask_repeat:--dim=batch=4:--dim=seq=7"
               "pt_elt_activations:--dim=batch=5"
               "pt_elt_expand_h0_op17:--dim=seq=9:--dim=batch=3"
               "pt_elt_mask_repeat_op17:--dim=batch=4:--dim=seq=7"
               "pt_elt_activations_op17:--dim=batch=5")
    string(REPLACE ":" ";" parts ${spec})
    list(GET parts 0 c)
    list(SUBLIST parts 1 -1 dims)
    add_test(NAME e2e_elt_dims_${c}
             COMMAND $<TARGET_FILE:lstmc> ${FIX}/${c}/model.onnx ${dims} --target=host
                     -o ${CMAKE_CURRENT_BINARY_DIR}/work/elt_dims_${c})
  endforeach()
endif()

# the portable kernels of rt_eltwise2.c cross-built and run under qemu-user (skipped, 77,
# where the cross compiler or the emulator is missing): AArch64 and 32-bit Arm
if(NOT LSTMC_SANITIZE AND EXISTS ${FIX}/elt_unary_op22)
  lstmc_e2e(cross_aarch64_elt_unary_op22 elt_unary_op22 xa64_elt_unary_op22 NO_ENV
            ENV CROSS_TARGET=aarch64 CROSS_CC=aarch64-linux-gnu-gcc
                CROSS_AR=aarch64-linux-gnu-ar CROSS_RUN=qemu-aarch64
            SKIP_RETURN_CODE 77)
  lstmc_e2e(cross_armv7_pt_elt_mask_repeat pt_elt_mask_repeat xa32_pt_elt_mask_repeat
            --dim=batch=2 --dim=seq=5 NO_ENV
            ENV CROSS_TARGET=armv7 CROSS_CC=arm-linux-gnueabihf-gcc
                CROSS_AR=arm-linux-gnueabihf-ar CROSS_RUN=qemu-arm
            SKIP_RETURN_CODE 77)
endif()

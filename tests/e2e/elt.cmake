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

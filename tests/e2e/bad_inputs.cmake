# Bad input: every malformed model or data file gets exit status 1 (2 for bad usage), a
# message naming what is wrong, no signal, within seconds (expect_fail.sh kills at 60 s),
# and the compiler's arena capped at 256 MiB so an absurd size cannot be allocated.
set(BAD ${CMAKE_SOURCE_DIR}/tests/bad)
set(XF ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh)
set(LSTMC $<TARGET_FILE:lstmc>)
set(BOUT ${CMAKE_CURRENT_BINARY_DIR}/bad_out)

function(lstmc_bad name code substr)
  add_test(NAME bad_${name} COMMAND ${XF} ${code} ${substr} ${ARGN})
  set_tests_properties(bad_${name} PROPERTIES TIMEOUT 90
                       ENVIRONMENT "LSTMC_MEMORY_LIMIT=268435456;${LSTMC_E2E_ENV}")
endfunction()

# compile-time: the model file itself
lstmc_bad(empty 1 "empty.onnx: not a valid ONNX model (the file is empty)"
          ${LSTMC} ${BAD}/empty.onnx --target=host -o ${BOUT}/empty)
lstmc_bad(truncated 1 "truncated.onnx: not a valid ONNX model"
          ${LSTMC} ${BAD}/truncated.onnx --target=host -o ${BOUT}/truncated)
lstmc_bad(random_bytes 1 "random_bytes.onnx: not a valid ONNX model"
          ${LSTMC} ${BAD}/random_bytes.onnx --target=host -o ${BOUT}/random)
lstmc_bad(missing_model 1 "cannot open the model"
          ${LSTMC} ${BAD}/no_such_model.onnx --target=host -o ${BOUT}/none)
lstmc_bad(missing_weights 1
          "LSTM node #0 (unnamed): input 'W_missing' is not produced by any node, initializer or graph input"
          ${LSTMC} ${BAD}/missing_weights.onnx --target=host -o ${BOUT}/mw)
lstmc_bad(unsupported_op_einsum 1 "node 'einsum_1' (Einsum): unsupported operator 'Einsum'"
          ${LSTMC} ${BAD}/unsupported_ops.onnx --target=host -o ${BOUT}/uo)
# the same run lists the second unsupported node too
lstmc_bad(unsupported_op_nms 1
          "node 'nms_1' (NonMaxSuppression): unsupported operator 'NonMaxSuppression'"
          ${LSTMC} ${BAD}/unsupported_ops.onnx --target=host -o ${BOUT}/uo2)
lstmc_bad(w_shape_mismatch 1
          "LSTM node #0 (unnamed): input 'W' has shape [1,20,4]"
          ${LSTMC} ${BAD}/lstm_w_shape_mismatch.onnx --target=host -o ${BOUT}/wsm)
lstmc_bad(hidden_huge 1
          "LSTM node #0 (unnamed): attribute 'hidden_size' is 1099511627776"
          ${LSTMC} ${BAD}/lstm_hidden_huge.onnx --target=host -o ${BOUT}/hh)
lstmc_bad(negative_dim_initializer 1 "tensor 'W': has a negative dim in dims [1,-12,4]"
          ${LSTMC} ${BAD}/negative_dim_initializer.onnx --target=host -o ${BOUT}/ndi)
lstmc_bad(negative_dim_input 1 "graph input 'X' has dim 1 = -2"
          ${LSTMC} ${BAD}/negative_dim_input.onnx --target=host -o ${BOUT}/ndx)
lstmc_bad(external_data_missing 1
          "tensor 'W': external data file '${BAD}/does_not_exist.bin' cannot be opened"
          ${LSTMC} ${BAD}/external_data_missing.onnx --target=host -o ${BOUT}/edm)
lstmc_bad(cycle 1 "node 'add_a' (Add): is part of a cycle"
          ${LSTMC} ${BAD}/cycle.onnx --target=host -o ${BOUT}/cyc)
lstmc_bad(symbolic_unbound 1 "input 'X': dim 0 ('seq') is symbolic"
          ${LSTMC} ${BAD}/zero_len_seq.onnx --target=host -o ${BOUT}/sym)
# issue 19: an unnamed node is named by its op type and index, never by an invented name
lstmc_bad(unnamed_node 1 "unnamed_cast.onnx: Cast node #1 (unnamed): attribute 'to' is STRING"
          ${LSTMC} ${BAD}/unnamed_cast.onnx --target=host -o ${BOUT}/unc)
# issue 19: every non-constant shape operand is named, not only the first
lstmc_bad(slice_dynamic_operands 1
          "node 'slice_a' (Slice): shape operands 'starts' (graph input 'starts'), 'ends' (graph input 'ends') are not constant"
          ${LSTMC} ${BAD}/slice_dynamic.onnx --target=host -o ${BOUT}/sld)
# issue 19: a symbolic batch compiles as batch 1, but a symbolic sequence length unbound is
# still refused, naming its --dim (pt_gru_cls: features [batch, seq, 10])
lstmc_bad(symbolic_seq_unbound 1
          "input 'features': dim 1 ('seq') is symbolic"
          ${LSTMC} ${FIX}/pt_gru_cls/model.onnx --target=host -o ${BOUT}/sseq)

# run time: the data
lstmc_bad(zero_length_sequence 1
          "input 'X': ${BAD}/zero_len_seq_input.npy has shape [0,1,4]: dim 0 is 0, and a zero-length sequence"
          ${LSTMC} run ${BAD}/zero_len_seq.onnx --input X=${BAD}/zero_len_seq_input.npy
          --output-dir ${BOUT}/zl)
lstmc_bad(truncated_npy 1 "input 'X': ${BAD}/truncated_header.npy:"
          ${LSTMC} run ${BAD}/zero_len_seq.onnx --input X=${BAD}/truncated_header.npy
          --output-dir ${BOUT}/tn)
lstmc_bad(npy_wrong_dtype 1 "holds i64 data, the model expects f32"
          ${LSTMC} run ${FIX}/lstm_fwd_b1/model.onnx
          --input X=${FIX}/pt_embed_lstm2_cls/inputs/input.1.npy --output-dir ${BOUT}/wd)
lstmc_bad(npy_wrong_shape 1 "zero_len_seq_ok_input.npy has shape [5,1,4], the model expects [1,128,9]"
          ${LSTMC} run ${FIX}/pt_har_lstm/model.onnx
          --input input=${BAD}/zero_len_seq_ok_input.npy --output-dir ${BOUT}/ws)
lstmc_bad(unknown_input_name 1 "the model has no input named 'nope'"
          ${LSTMC} run ${BAD}/zero_len_seq.onnx --input nope=${BAD}/zero_len_seq_ok_input.npy
          --output-dir ${BOUT}/un)
lstmc_bad(missing_input_data 1 "input 'X' has no data"
          ${LSTMC} run ${BAD}/zero_len_seq.onnx --output-dir ${BOUT}/mi)

# usage
lstmc_bad(usage_no_model 2 "no model given" ${LSTMC} --target=host -o ${BOUT}/u)
lstmc_bad(usage_no_outdir 2 "no output folder" ${LSTMC} ${BAD}/cycle.onnx --target=host)
lstmc_bad(usage_unknown_option 2 "unknown or incomplete option '--frobnicate'"
          ${LSTMC} ${BAD}/cycle.onnx --frobnicate -o ${BOUT}/u)
lstmc_bad(usage_bad_dim 2 "--dim value must be an integer"
          ${LSTMC} ${BAD}/zero_len_seq.onnx --dim=seq=-3 -o ${BOUT}/u)
# issue 21: ranged dims (--dim=SYM=MIN..MAX)
lstmc_bad(usage_bad_dim_range 2 "--dim range must be MIN..MAX with 1 <= MIN <= MAX"
          ${LSTMC} ${FIX}/lstm_symbolic/model.onnx --dim=seq=9..2 -o ${BOUT}/u)
lstmc_bad(usage_bad_dim_range_zero 2 "--dim range must be MIN..MAX with 1 <= MIN <= MAX"
          ${LSTMC} ${FIX}/lstm_symbolic/model.onnx --dim=seq=0..4 -o ${BOUT}/u)
lstmc_bad(usage_bad_dim_range_open 2 "--dim range must be MIN..MAX"
          ${LSTMC} ${FIX}/lstm_symbolic/model.onnx --dim=seq=1.. -o ${BOUT}/u)
lstmc_bad(ranged_not_polynomial 1
          "--dim ranges: the 'out_w' of node 'frames' (Conv) (64 at the maximum) is no polynomial of the ranged dims"
          ${LSTMC} ${BAD}/ranged_hop32.onnx --dim=seq=32..2048 -o ${BOUT}/rc)
lstmc_bad(usage_ranged_calibrate 2 "--dim: a range (seq=MIN..MAX) makes one library for many runs"
          ${LSTMC} calibrate ${FIX}/lstm_symbolic/model.onnx --data ${FIX}/lstm_symbolic/inputs/X.npy
          -o ${BOUT}/rcal --dim=seq=1..9)
lstmc_bad(ranged_dim_no_input 1 "--dim=nosuch=1..4: no input of the model has an axis of exactly 'nosuch'"
          ${LSTMC} ${FIX}/lstm_symbolic/model.onnx --dim=seq=4 --dim=batch=2 --dim=nosuch=1..4
          -o ${BOUT}/rn)
lstmc_bad(ranged_opencl 1 "a ranged dim does not combine with an OpenCL target ('tegra-x1') yet"
          ${LSTMC} ${FIX}/lstm_symbolic/model.onnx --dim=seq=1..8 --dim=batch=2 --target=tegra-x1
          -o ${BOUT}/ro)
lstmc_bad(unknown_target 1 "unknown target 'nosuchboard'"
          ${LSTMC} ${FIX}/lstm_fwd_b1/model.onnx --target=nosuchboard -o ${BOUT}/u)

# a good run of the same model after all that: binding the symbolic dim works
add_test(NAME run_symbolic_dim_bound
         COMMAND ${LSTMC} run ${BAD}/zero_len_seq.onnx --input ${BAD}/zero_len_seq_ok_input.npy
                 --output-dir ${BOUT}/ok)
set_tests_properties(run_symbolic_dim_bound PROPERTIES ENVIRONMENT "${LSTMC_E2E_ENV}")

# found by fuzzing (fuzz/run.sh, issue 11): the reproducers are in tests/bad/fuzz/
# an empty (0-element) tensor in a ConstantOfShape 'value': memcpy from NULL in the importer
lstmc_bad(fuzz_empty_value_tensor 1
          "ConstantOfShape node #5 (unnamed): attribute 'value' must hold exactly one element"
          ${LSTMC} ${BAD}/fuzz/empty_value_tensor.onnx --target=host -o ${BOUT}/fz_evt)
# a valid model: Slice steps of 2^61+2 (one element taken) must compile without an int64
# overflow in the strides (kprog.c lower_slice; the ASan+UBSan build catches it)
add_test(NAME fuzz_slice_huge_step
         COMMAND ${LSTMC} ${BAD}/fuzz/slice_huge_step.onnx --target=host -o ${BOUT}/fz_shs)
set_tests_properties(fuzz_slice_huge_step PROPERTIES TIMEOUT 90
                     ENVIRONMENT "LSTMC_MEMORY_LIMIT=268435456;${LSTMC_E2E_ENV}")

# huge graphs compile in bounded time: 20,000 nodes (tests/stress/make_chain.py)
add_test(NAME stress_chain_20k
         COMMAND ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/stress/chain_20k.onnx --target=host
                 -o ${BOUT}/chain_20k)
set_tests_properties(stress_chain_20k PROPERTIES TIMEOUT 30
                     ENVIRONMENT "LSTMC_MEMORY_LIMIT=1073741824;${LSTMC_E2E_ENV}")

# resource limits: weights and arena over the configured limit are refused, fast
lstmc_bad(limit_arena_8GB 1
          "the working memory (arena) would take 8589934592 bytes, more than the limit"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/stress/const_arena_8GB.onnx -o ${BOUT}/ca)
lstmc_bad(limit_const_blowup 1 "more than the limit of 1073741824"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/stress/const_blowup_20x60MB.onnx -o ${BOUT}/cb)
lstmc_bad(limit_max_weights 1 "the weights would take 55584 bytes, more than the limit of 1000"
          ${LSTMC} ${FIX}/pt_har_lstm/model.onnx --max-weights=1000 -o ${BOUT}/mw2)
lstmc_bad(usage_bad_limit 2 "--max-weights / --max-arena take a size"
          ${LSTMC} ${FIX}/pt_har_lstm/model.onnx --max-arena=lots -o ${BOUT}/mw3)

# calibration files and data
lstmc_bad(calib_truncated 1 "truncated.calib:3: expected 3 values, got 2"
          ${LSTMC} ${BAD}/zero_len_seq.onnx --dim=seq=5 --alpha-inter=1
          --calib=${BAD}/truncated.calib -o ${BOUT}/cal1)
lstmc_bad(calib_bad_data 1 "truncated_header.npy: truncated header"
          ${LSTMC} calibrate ${BAD}/zero_len_seq.onnx --data ${BAD}/truncated_header.npy
          -o ${BOUT}/x.calib)
# issue 20, red: TopK's K given as a graph input is refused, naming the operand
lstmc_bad(red_topk_dynamic_k 1
          "node 'topk_a' (TopK): shape operand 'K' (graph input 'k') is not constant once the input dims are bound"
          ${LSTMC} ${BAD}/red_topk_dynamic_k.onnx --target=host -o ${BOUT}/rtk)

# issue 20, conv: what the convolution front ends refuse names the rank, attribute or output
lstmc_bad(conv_3d 1 "node 'conv3d' (Conv): input 'X' has shape [1,2,4,4,4]: 3-D convolution (input rank 5) is not supported"
          ${LSTMC} ${BAD}/conv_3d.onnx --target=host -o ${BOUT}/c3d)
lstmc_bad(conv_auto_pad_same 1 "node 'conv_same' (Conv): attribute 'auto_pad' is \"SAME\""
          ${LSTMC} ${BAD}/conv_auto_pad_same.onnx --target=host -o ${BOUT}/cas)
lstmc_bad(conv_group 1 "node 'conv_g' (Conv): attribute 'group' is 3"
          ${LSTMC} ${BAD}/conv_group.onnx --target=host -o ${BOUT}/cg)
lstmc_bad(bn_training_mode 1 "node 'bn_train' (BatchNormalization): attribute 'training_mode' is 1"
          ${LSTMC} ${BAD}/bn_training_mode.onnx --target=host -o ${BOUT}/bnt)
lstmc_bad(bn_training_outputs 1 "node 'bn_outs' (BatchNormalization): output 'running_mean' ('rm') is a training output"
          ${LSTMC} ${BAD}/bn_training_outputs.onnx --target=host -o ${BOUT}/bno)
lstmc_bad(maxpool_indices 1 "node 'pool_idx' (MaxPool): output 'Indices' ('I') is not supported"
          ${LSTMC} ${BAD}/maxpool_indices.onnx --target=host -o ${BOUT}/mpi)

# issue 22: the full-integer modes. Usage (exit 2): a bad --activations or --io value, --io=int
# without --activations, --activations with float weights; the model (exit 1): no ranges (no
# --calib-data and no QDQ), an activation the recipe does not have (HardSigmoid), calibration
# samples of the wrong dtype, an OpenCL target, and --io=int where a softmax stays in float
set(_qm ${CMAKE_SOURCE_DIR}/tests/fixtures/cases/lstm_bidir_init/model.onnx)
lstmc_bad(usage_bad_activations 2 "--activations takes fp32, int8 or int16, got 'int4'"
          ${LSTMC} ${_qm} --activations=int4 -o ${BOUT}/qa1)
lstmc_bad(usage_bad_io 2 "--io takes float or int, got 'uint'"
          ${LSTMC} ${_qm} --io=uint -o ${BOUT}/qa2)
lstmc_bad(usage_io_int_alone 2 "--io=int needs --activations=int8 or int16"
          ${LSTMC} ${_qm} --io=int -o ${BOUT}/qa3)
lstmc_bad(usage_activations_fp16 2 "it does not combine with --weights=fp16"
          ${LSTMC} ${_qm} --activations=int8 --weights=fp16 -o ${BOUT}/qa4)
lstmc_bad(activations_no_ranges 1
          "--activations=int8 needs the layer's activation ranges: give --calib-data"
          ${LSTMC} ${_qm} --activations=int8 -o ${BOUT}/qa5)
lstmc_bad(activations_hardsigmoid 1 "activation HardSigmoid has no integer recipe"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/fixtures/cases/lstm_act_hsig_stanh_affine/model.onnx
          --activations=int16 -o ${BOUT}/qa6)
lstmc_bad(activations_calib_dtype 1 "--calib-data"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/train/charlm/model.onnx --activations=int8
          --calib-data=${CMAKE_SOURCE_DIR}/tests/train/har/eval_x.npy -o ${BOUT}/qa7)
lstmc_bad(activations_opencl 1 "does not combine with an OpenCL target ('pocl')"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/fixtures/cases/qdq_lstm_u8/model.onnx
          --activations=int8 --target=pocl -o ${BOUT}/qa8)
# a QDQ model whose activations are 16-bit (opset 21 INT16) compiled with --activations=int8
lstmc_bad(activations_qdq_width 1
          "compile it with --activations=int16, not int8"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/fixtures/cases/qdq_lstm_i16/model.onnx
          --activations=int8 -o ${BOUT}/qa10)
# issue 24: --alpha-inter and --alpha-intra combine with the integer LSTM; --hsparse does not
lstmc_bad(activations_hsparse 1 "does not combine with --hsparse or --sparse=esell"
          ${LSTMC} ${_qm} --activations=int8 --hsparse=0.1 -o ${BOUT}/qa12)
lstmc_bad(io_int_softmax 1 "--io=int: computes in float"
          ${LSTMC} ${CMAKE_SOURCE_DIR}/tests/fixtures/cases/pt_har_lstm/model.onnx
          --activations=int8 --io=int --calib-data=${CMAKE_SOURCE_DIR}/tests/train/har/eval_x.npy
          -o ${BOUT}/qa9)

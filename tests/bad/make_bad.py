#!/usr/bin/python3
"""Write the malformed-input corpus for lstmc's error paths into tests/bad/.

    /usr/bin/python3 tests/bad/make_bad.py

Deterministic (fixed seeds): rerunning produces byte-identical files.
See README.md in this directory for what is wrong with each file.
"""
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
I, H = 4, 3


def lstm_weights(seed, hidden=H, rows=None):
    rng = np.random.RandomState(seed)
    rows = 4 * hidden if rows is None else rows
    W = (rng.uniform(-0.5, 0.5, (1, rows, I))).astype(np.float32)
    R = (rng.uniform(-0.5, 0.5, (1, rows, hidden))).astype(np.float32)
    B = (rng.uniform(-0.2, 0.2, (1, 2 * rows))).astype(np.float32)
    return W, R, B


def model(nodes, inputs, outputs, inits, opset=14, name="bad"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="lstmc-make_bad")
    m.ir_version = 7
    return m


def fin(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def valid_lstm(seed=1, seq=5):
    W, R, B = lstm_weights(seed)
    return model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H)],
                 [fin("X", [seq, 1, I])],
                 [fin("Y", [seq, 1, 1, H]), fin("Y_h", [1, 1, H])],
                 [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"),
                  numpy_helper.from_array(B, "B")], name="valid_lstm")


def write(name, data):
    (HERE / name).write_bytes(data)


def conv_bad():
    """issue 20, conv: what the convolution front ends refuse, each naming the attribute,
    output or rank (tests/e2e/bad_inputs.cmake)."""
    rng = np.random.RandomState(20)
    f = lambda *sh: numpy_helper.from_array(rng.standard_normal(sh).astype(np.float32))
    N = helper.make_node

    def init(name, *sh):
        t = f(*sh)
        t.name = name
        return t

    def bn_inits(c):
        return [init(n, c) for n in ("s", "b", "m")] + [
            numpy_helper.from_array(np.ones(c, np.float32), "v")]

    cases = {
        # a 3-D convolution (input rank 5)
        "conv_3d.onnx": model([N("Conv", ["X", "W"], ["Y"], name="conv3d")],
                              [fin("X", [1, 2, 4, 4, 4])], [fin("Y", [1, 3, 2, 2, 2])],
                              [init("W", 3, 2, 3, 3, 3)]),
        # auto_pad "SAME" is no ONNX value
        "conv_auto_pad_same.onnx": model([N("Conv", ["X", "W"], ["Y"], name="conv_same",
                                            auto_pad="SAME")],
                                         [fin("X", [1, 2, 8])], [fin("Y", [1, 3, 8])],
                                         [init("W", 3, 2, 3)]),
        # group 3 does not divide 4 input channels
        "conv_group.onnx": model([N("Conv", ["X", "W"], ["Y"], name="conv_g", group=3)],
                                 [fin("X", [1, 4, 8])], [fin("Y", [1, 3, 6])],
                                 [init("W", 3, 1, 3)]),
        # BatchNormalization in training mode (opset 14)
        "bn_training_mode.onnx": model([N("BatchNormalization", ["X", "s", "b", "m", "v"], ["Y"],
                                          name="bn_train", training_mode=1)],
                                       [fin("X", [2, 3, 5])], [fin("Y", [2, 3, 5])], bn_inits(3)),
        # BatchNormalization with its training outputs (opset 9)
        "bn_training_outputs.onnx": model([N("BatchNormalization", ["X", "s", "b", "m", "v"],
                                             ["Y", "rm", "rv"], name="bn_outs")],
                                          [fin("X", [2, 3, 5])],
                                          [fin("Y", [2, 3, 5]), fin("rm", [3]), fin("rv", [3])],
                                          bn_inits(3), opset=9),
        # MaxPool's Indices output
        "maxpool_indices.onnx": model([N("MaxPool", ["X"], ["Y", "I"], name="pool_idx",
                                         kernel_shape=[2])],
                                      [fin("X", [1, 2, 8])],
                                      [fin("Y", [1, 2, 7]),
                                       helper.make_tensor_value_info("I", TensorProto.INT64,
                                                                     [1, 2, 7])], []),
    }
    for name, m in cases.items():
        write(name, m.SerializeToString())
        onnx.load(str(HERE / name))
    return list(cases)


def ranged_bad():
    """issue 21: what a ranged dim (--dim=seq=MIN..MAX) refuses: a learnt filterbank that
    frames time with a hop of 32 (Conv1d kernel 32, stride 32) before an LSTM. Its output
    length seq // 32 is a floor of seq with a divisor above the 16 the fit tries."""
    rng = np.random.RandomState(21)
    W, R, B = lstm_weights(21)
    N = helper.make_node
    Wc = (rng.standard_normal((I, 1, 32)) * 0.2).astype(np.float32)
    m = model([N("Conv", ["X", "Wc"], ["C"], name="frames", strides=[32]),
               N("Transpose", ["C"], ["Ct"], perm=[2, 0, 1], name="to_tnc"),
               N("LSTM", ["Ct", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H, name="lstm")],
              [fin("X", [1, 1, "seq"])],
              [fin("Y", [None, 1, 1, H]), fin("Y_h", [1, 1, H])],
              [numpy_helper.from_array(Wc, "Wc"), numpy_helper.from_array(W, "W"),
               numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")],
              name="ranged_hop32")
    write("ranged_hop32.onnx", m.SerializeToString())
    return ["ranged_hop32.onnx"]


def main():
    # 1. empty file
    write("empty.onnx", b"")

    # 2. valid model cut in half
    full = valid_lstm().SerializeToString()
    write("truncated.onnx", full[: len(full) // 2])

    # 3. 4 KB of random bytes
    write("random_bytes.onnx", np.random.RandomState(1234).bytes(4096))

    # 4. LSTM whose W is neither initializer, graph input nor produced by a node
    W, R, B = lstm_weights(4)
    m = model([helper.make_node("LSTM", ["X", "W_missing", "R", "B"], ["Y", "Y_h"], hidden_size=H)],
              [fin("X", [5, 1, I])], [fin("Y", [5, 1, 1, H]), fin("Y_h", [1, 1, H])],
              [numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")], name="missing_weights")
    write("missing_weights.onnx", m.SerializeToString())

    # 5. two unsupported ops (Einsum, NonMaxSuppression) next to a valid LSTM
    W, R, B = lstm_weights(5)
    rng = np.random.RandomState(5)
    m = model([
        helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H, name="lstm_ok"),
        helper.make_node("Einsum", ["Y_h", "E"], ["einsum_out"], equation="dbh,hk->dbk", name="einsum_1"),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou_thr"], ["selected"],
                         name="nms_1"),
    ], [fin("X", [5, 1, I]), fin("boxes", [1, 6, 4]), fin("scores", [1, 1, 6])],
        [fin("einsum_out", [1, 1, 2]), helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])],
        [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B"),
         numpy_helper.from_array(rng.uniform(-1, 1, (H, 2)).astype(np.float32), "E"),
         numpy_helper.from_array(np.array([3], np.int64), "max_out"),
         numpy_helper.from_array(np.array([0.5], np.float32), "iou_thr")], opset=14, name="unsupported_ops")
    write("unsupported_ops.onnx", m.SerializeToString())

    # 6. W shape contradicts hidden_size (W has 4*5 rows, hidden_size=3)
    W, _, _ = lstm_weights(6, hidden=5)
    _, R, B = lstm_weights(6)
    m = model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H)],
              [fin("X", [5, 1, I])], [fin("Y", [5, 1, 1, H]), fin("Y_h", [1, 1, H])],
              [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")],
              name="w_shape_mismatch")
    write("lstm_w_shape_mismatch.onnx", m.SerializeToString())

    # 7. hidden_size = 2^40 with small weights (must be rejected, not allocated)
    W, R, B = lstm_weights(7)
    m = model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=2 ** 40)],
              [fin("X", [5, 1, I])], [fin("Y", [5, 1, 1, 2 ** 40]), fin("Y_h", [1, 1, 2 ** 40])],
              [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")],
              name="hidden_huge")
    write("lstm_hidden_huge.onnx", m.SerializeToString())

    # 8a. initializer with a negative dim
    W, R, B = lstm_weights(8)
    Wt = numpy_helper.from_array(W, "W")
    del Wt.dims[:]
    Wt.dims.extend([1, -12, I])
    m = model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H)],
              [fin("X", [5, 1, I])], [fin("Y", [5, 1, 1, H]), fin("Y_h", [1, 1, H])],
              [Wt, numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")], name="neg_dim_init")
    write("negative_dim_initializer.onnx", m.SerializeToString())

    # 8b. graph input with a negative dim_value
    W, R, B = lstm_weights(9)
    m = model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H)],
              [fin("X", [5, -2, I])], [fin("Y", [5, 1, 1, H]), fin("Y_h", [1, 1, H])],
              [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")],
              name="neg_dim_input")
    write("negative_dim_input.onnx", m.SerializeToString())

    # 9. initializer stored EXTERNAL in a file that does not exist
    W, R, B = lstm_weights(10)
    Wt = numpy_helper.from_array(W, "W")
    Wt.ClearField("raw_data")
    Wt.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "does_not_exist.bin"), ("offset", "0"), ("length", str(W.nbytes))):
        e = Wt.external_data.add()
        e.key, e.value = k, v
    m = model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H)],
              [fin("X", [5, 1, I])], [fin("Y", [5, 1, 1, H]), fin("Y_h", [1, 1, H])],
              [Wt, numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")], name="external_missing")
    write("external_data_missing.onnx", m.SerializeToString())

    # 10. cycle: a = Add(x, b); b = Add(a, x)
    m = model([helper.make_node("Add", ["x", "b"], ["a"], name="add_a"),
               helper.make_node("Add", ["a", "x"], ["b"], name="add_b")],
              [fin("x", [2, 3])], [fin("a", [2, 3])], [], name="cycle")
    write("cycle.onnx", m.SerializeToString())

    # 11. valid LSTM with symbolic seq dim + an input of sequence length 0 (run-time check)
    W, R, B = lstm_weights(11)
    m = model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h", "Y_c"], hidden_size=H)],
              [fin("X", ["seq", 1, I])],
              [fin("Y", ["seq", 1, 1, H]), fin("Y_h", [1, 1, H]), fin("Y_c", [1, 1, H])],
              [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")],
              name="zero_len_seq")
    onnx.checker.check_model(m)
    write("zero_len_seq.onnx", m.SerializeToString())
    np.save(HERE / "zero_len_seq_input.npy", np.zeros((0, 1, I), np.float32))
    # a matching well-formed input of length 5, so the same model can be run successfully too
    np.save(HERE / "zero_len_seq_ok_input.npy",
            np.random.RandomState(11).standard_normal((5, 1, I)).astype(np.float32))

    # 12. .npy with a truncated header (for the run command)
    import io
    buf = io.BytesIO()
    np.save(buf, np.random.RandomState(12).standard_normal((5, 1, I)).astype(np.float32))
    write("truncated_header.npy", buf.getvalue()[:40])

    # run time: NaN and infinity in an input are computed through, never a crash
    x = np.random.RandomState(7).randn(5, 1, 4).astype(np.float32)
    x[0, 0, 0] = np.nan
    x[2, 0, 1] = np.inf
    x[4, 0, 3] = -np.inf
    np.save(HERE / "nan_inf_input.npy", x)

    # 13. an unnamed node the importer refuses (Cast to STRING): the message must say the
    # node is unnamed and where it is ("Cast node #1 (unnamed)"), not an invented name
    m = model([helper.make_node("Relu", ["X"], ["r"], name="relu_a"),
               helper.make_node("Cast", ["r"], ["Y"], to=TensorProto.STRING)],
              [fin("X", [2, 3])], [helper.make_tensor_value_info("Y", TensorProto.STRING, [2, 3])],
              [], name="unnamed_cast")
    write("unnamed_cast.onnx", m.SerializeToString())

    # 14. a Slice whose starts and ends are both graph inputs (not constants): both named
    i64 = TensorProto.INT64
    m = model([helper.make_node("Slice", ["X", "starts", "ends"], ["Y"], name="slice_a")],
              [fin("X", [4, 6]), helper.make_tensor_value_info("starts", i64, [1]),
               helper.make_tensor_value_info("ends", i64, [1])],
              [fin("Y", ["n", 6])], [], name="slice_dynamic")
    onnx.checker.check_model(m)
    write("slice_dynamic.onnx", m.SerializeToString())

    # 15. issue 20: shape operands computed from a graph input's values, on five independent
    # nodes (Reshape's shape, Tile's repeats, Expand's shape, ConstantOfShape's input,
    # Range's limit): one run names every one and the graph input behind it
    N = helper.make_node
    m = model([N("Add", ["ids", "one"], ["ids1"], name="add_ids"),
               N("Reshape", ["X", "ids1"], ["r"], name="reshape_a"),
               N("Tile", ["X", "ids"], ["t"], name="tile_a"),
               N("Concat", ["ids", "ids"], ["ids4"], axis=0, name="concat_ids"),
               N("Expand", ["X", "ids"], ["e"], name="expand_a"),
               N("ConstantOfShape", ["ids"], ["z"], name="zeros_a"),
               N("Gather", ["ids", "zero"], ["n0"], axis=0, name="gather_n"),
               N("Range", ["zero", "n0", "one_s"], ["rg"], name="range_a"),
               N("Shape", ["X"], ["xs"], name="shape_x"),
               N("Reshape", ["X", "xs"], ["ok"], name="reshape_ok")],
              [fin("X", [2, 3]), helper.make_tensor_value_info("ids", i64, [2])],
              [fin("r", ["a", "b"]), fin("t", ["c", "d"]), fin("e", ["f", "g"]), fin("z", ["h", "i"]),
               helper.make_tensor_value_info("rg", i64, ["j"]), fin("ok", [2, 3])],
              [numpy_helper.from_array(np.array([1, 1], np.int64), "one"),
               numpy_helper.from_array(np.array(0, np.int64), "zero"),
               numpy_helper.from_array(np.array(1, np.int64), "one_s")], name="dyn_shape_operands")
    onnx.checker.check_model(m)
    write("dyn_shape_operands.onnx", m.SerializeToString())

    # 16. issue 20: an unsupported op (Softsign) whose result one node reads, next to a supported
    # one: the PyTorch construct named, and the summary says it is the only obstacle
    m = model([N("Softsign", ["X"], ["s"], name="softsign_a"), N("Relu", ["s"], ["Y"], name="relu_after"),
               N("Tanh", ["X"], ["Z"], name="tanh_b")],
              [fin("X", [2, 3])], [fin("Y", [2, 3]), fin("Z", [2, 3])], [], name="unsupported_softsign")
    onnx.checker.check_model(m)
    write("unsupported_softsign.onnx", m.SerializeToString())
    # ... and with another refusal beside it (Cast to STRING)
    m = model([N("Softsign", ["X"], ["s"], name="softsign_a"),
               N("Cast", ["X"], ["Y"], to=TensorProto.STRING, name="cast_str")],
              [fin("X", [2, 3])], [fin("s", [2, 3]),
                                   helper.make_tensor_value_info("Y", TensorProto.STRING, [2, 3])],
              [], name="unsupported_and_other")
    write("unsupported_and_other.onnx", m.SerializeToString())

    # ... and with a node that does not read its result but cannot compile either (Add of
    # shapes that do not broadcast): the driver says the rest would not compile
    m = model([N("Softsign", ["X"], ["s"], name="softsign_a"),
               N("Add", ["X", "b4"], ["Z"], name="add_bad")],
              [fin("X", [2, 3])], [fin("s", [2, 3]), fin("Z", [2, 3])],
              [numpy_helper.from_array(np.zeros(4, np.float32), "b4")], name="unsupported_rest_bad")
    write("unsupported_rest_bad.onnx", m.SerializeToString())
    # 17. issue 20, red: a shape operand of the new ops given as a graph input (TopK's K)
    m = model([helper.make_node("TopK", ["X", "k"], ["V", "I"], name="topk_a")],
              [fin("X", [4, 6]), helper.make_tensor_value_info("k", i64, [1])],
              [fin("V", [4, "k"]), helper.make_tensor_value_info("I", i64, [4, "k"])], [],
              opset=13, name="red_topk_dynamic_k")
    onnx.checker.check_model(m)
    write("red_topk_dynamic_k.onnx", m.SerializeToString())

    # sanity: the files that should not parse, do not; the rest parse
    for f in ("empty.onnx",):
        assert (HERE / f).stat().st_size == 0
    for f in ("missing_weights.onnx", "unsupported_ops.onnx", "lstm_w_shape_mismatch.onnx",
              "lstm_hidden_huge.onnx", "negative_dim_initializer.onnx", "negative_dim_input.onnx",
              "external_data_missing.onnx", "cycle.onnx", "zero_len_seq.onnx",
              "unnamed_cast.onnx", "slice_dynamic.onnx", "dyn_shape_operands.onnx",
              "unsupported_softsign.onnx", "unsupported_and_other.onnx", "unsupported_rest_bad.onnx",
              "red_topk_dynamic_k.onnx"):
        onnx.load(str(HERE / f), load_external_data=False)
    for f in ("truncated.onnx", "random_bytes.onnx"):
        try:
            onnx.load_model_from_string((HERE / f).read_bytes())
        except Exception:
            continue
        raise SystemExit(f"{f} unexpectedly parses as a ModelProto")
    conv_bad()
    ranged_bad()
    print("tests/bad written")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""gen_qtables.py -- writes runtime/src/internal/rnnq_tables.h: the 513-entry sigmoid and tanh
tables of the full-integer recurrent recipe (docs/PRECISION.md, "Full-integer recurrent
layers"): entry i is 32768 * f(-8 + i/32) rounded half up, clamped to int16 (sigmoid to
[0, 32767], tanh to [-32767, 32767]).

    python3 scripts/gen_qtables.py > runtime/src/internal/rnnq_tables.h
"""
import math


def table(f, lo, hi):
    return [min(max(math.floor(32768.0 * f(-8.0 + i / 32.0) + 0.5), lo), hi) for i in range(513)]


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def emit(name, vals):
    print("static const int16_t %s[513] = {" % name)
    for i in range(0, 513, 12):
        print("    " + ", ".join("%d" % v for v in vals[i:i + 12]) + ",")
    print("};")


print("/* rnnq_tables.h -- written by scripts/gen_qtables.py; do not edit. The Q0.15 values")
print(" * of sigmoid and tanh at -8 + i/32, i = 0..512 (docs/PRECISION.md). */")
print("#ifndef LSTMC_RT_RNNQ_TABLES_H")
print("#define LSTMC_RT_RNNQ_TABLES_H")
print("")
print("#include <stdint.h>")
print("")
emit("lstmc_rt_q_sigmoid_table", table(sigmoid, 0, 32767))
print("")
emit("lstmc_rt_q_tanh_table", table(math.tanh, -32767, 32767))
print("")
print("#endif /* LSTMC_RT_RNNQ_TABLES_H */")

/*
 * test_codegen.c — output file names, library names, default names (DESIGN.md: every char
 * outside [A-Za-z0-9_.-] becomes '_').
 */
#include <criterion/criterion.h>

#include "arena.h"
#include "codegen.h"
#include "driver.h"

static void
check_sanitized(const char *name, const char *want)
{
    char buf[64];
    cg_sanitize_filename(name, buf, sizeof buf);
    cr_assert_str_eq(buf, want, "sanitize(%s)", name);
}

Test(codegen, output_file_names)
{
    check_sanitized("probs", "probs");
    check_sanitized("onnx::LSTM_0", "onnx__LSTM_0");
    check_sanitized("out:0 (logits)", "out_0__logits_");
    check_sanitized("a/b\\c", "a_b_c");
    check_sanitized("x.1-y_2", "x.1-y_2");
    check_sanitized("..", "_..");
    check_sanitized("", "_");
    check_sanitized("caf\xc3\xa9", "caf__");
}

Test(codegen, library_names)
{
    cr_assert(cg_name_ok("har"));
    cr_assert(cg_name_ok("_m1"));
    cr_assert_not(cg_name_ok("1m"));
    cr_assert_not(cg_name_ok("har-lstm"));
    cr_assert_not(cg_name_ok(""));
}

Test(codegen, default_names)
{
    arena *a = arena_new(0);
    cr_assert_str_eq(driver_default_name(a, "models/har-lstm.onnx"), "har_lstm");
    cr_assert_str_eq(driver_default_name(a, "2layer.onnx"), "m_2layer");
    cr_assert_str_eq(driver_default_name(a, "model"), "model");
    cr_assert(cg_name_ok(driver_default_name(a, "/tmp/x y.z.onnx")));
    arena_free(a);
}

/*
 * library.c — the C backend's entry point: every file of the portable C library (NAME.h,
 * NAME.c, NAME_weights.[ch], NAME_run.c, the Makefile, the runtime), around the kernels
 * another backend took (handled).
 */
#include "c_impl.h"

#include "diag.h"
#include "stream.h"

int
cg_c_begin(const cg_options *o, diag *d)
{
    if (!cg_name_ok(o->name)) {
        diag_error(d, "library name '%s' is not a C identifier (letters, digits, _)", o->name);
        return -1;
    }
    return cg_c_ensure_dir(o->outdir, d);
}

int
cg_c_streams(const cg_options *o)
{
    return cg_c_stream_on(o);
}

int
cg_c_library(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
             unsigned char *handled, unsigned char *handled_s, int n_obj, int n_obj_s,
             cg_c_sizes *sz, diag *d)
{
    cg_c_runtime rt;
    cg_c_runtime_of(&rt, kp, handled, cg_c_stream_on(o) ? &o->stream->kp : NULL, handled_s, o);
    if (cg_c_write_header(g, kp, mp, o, d) < 0 || cg_c_write_weights(g, mp, o, d) < 0 ||
        cg_c_write_host(g, kp, mp, o, handled, handled_s, d) < 0 ||
        cg_c_write_driver(g, kp, o, d) < 0 ||
        cg_c_write_makefile(o, &rt, n_obj, n_obj_s, cg_c_pool_threads(kp, handled), d) < 0 ||
        cg_c_write_runtime(o, &rt, d) < 0)
        return -1;
    cg_c_sizes_of(g, mp, o, sz);
    return 0;
}

void
cg_c_sizes_of(const ir_graph *g, const memplan *mp, const cg_options *o, cg_c_sizes *sz)
{
    sz->arena = cg_c_total_arena(mp, o);
    sz->stream_arena = cg_c_stream_arena(o);
    sz->state = cg_c_state_bytes(o);
    sz->stream_weights = cg_c_stream_weights(g, mp, o);
    sz->weights = cg_const_bytes(g, mp);
    sz->ctx = cg_c_ctx_bytes(o);
}

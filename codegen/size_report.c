/*
 * size_report.c — what the generated library costs on the device, written with every
 * compile (issue 9): OUTDIR/<name>_size.json and one line on stdout.
 *
 *   flash = weights (exact: the constant tensors' bytes)
 *         + LLVM kernels (exact: the allocated sections of <name>_kernels.o and
 *           <name>_stream_kernels.o; per layer, the st_size of each <name>_k<i> symbol)
 *         + host code and the C runtime (not measured here: they depend on the C compiler
 *           and its flags; `make size` in OUTDIR measures them with $(SIZE))
 *   RAM   = arena (exact: NAME_ARENA_SIZE; a firmware that only streams needs
 *           NAME_STREAM_ARENA_SIZE) + <name>_state (exact for 4-byte floats, 8-byte int64)
 *           + the caller's <name>_ctx (a few pointers, not counted)
 *
 * Per layer (one entry per model node that has kernel calls): the weights it reads first
 * (each constant counted once, for its first reader), the arena bytes of its outputs and
 * scratch (its working set; layers share the arena, so these do not add up to it), and
 * its LLVM kernels' code. The JSON format is documented in docs/SIZE_REPORT.md.
 */
#include "codegen.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"
#include "stream.h"
#include "target.h"
#include "wfmt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- ELF objects: section and symbol sizes -------------------------------------------- */

typedef struct elf_obj {
    unsigned char *b;
    size_t n;
    int is64;
} elf_obj;

static uint64_t
rd(const elf_obj *e, size_t off, int bytes)
{
    uint64_t v = 0;
    int i;
    if (off + (size_t)bytes > e->n)
        return 0;
    for (i = bytes - 1; i >= 0; i--) /* little-endian objects only (x86-64, AArch64, ARM) */
        v = v << 8 | e->b[off + (size_t)i];
    return v;
}

static int
elf_load(const char *path, elf_obj *e)
{
    FILE *f = fopen(path, "rb");
    long n;
    memset(e, 0, sizeof *e);
    if (!f)
        return -1;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 64 || fseek(f, 0, SEEK_SET) != 0 ||
        !(e->b = malloc((size_t)n)) || fread(e->b, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(e->b);
        e->b = NULL;
        return -1;
    }
    fclose(f);
    e->n = (size_t)n;
    if (memcmp(e->b, "\177ELF", 4) != 0 || e->b[5] != 1) { /* ELFDATA2LSB */
        free(e->b);
        e->b = NULL;
        return -1;
    }
    e->is64 = e->b[4] == 2;
    return 0;
}

/* Section i's header fields. */
static void
elf_section(const elf_obj *e, int i, uint32_t *type, uint64_t *flags, uint64_t *off, uint64_t *size,
            uint32_t *link)
{
    size_t shoff = (size_t)rd(e, e->is64 ? 0x28 : 0x20, e->is64 ? 8 : 4);
    size_t shentsize = (size_t)rd(e, e->is64 ? 0x3A : 0x2E, 2);
    size_t h = shoff + (size_t)i * shentsize;
    *type = (uint32_t)rd(e, h + 4, 4);
    *flags = rd(e, h + 8, e->is64 ? 8 : 4);
    *off = rd(e, h + (e->is64 ? 0x18 : 0x10), e->is64 ? 8 : 4);
    *size = rd(e, h + (e->is64 ? 0x20 : 0x14), e->is64 ? 8 : 4);
    *link = (uint32_t)rd(e, h + (e->is64 ? 0x28 : 0x18), 4);
}

static int
elf_nsections(const elf_obj *e)
{
    return (int)rd(e, e->is64 ? 0x3C : 0x30, 2);
}

/* Bytes of the object's allocated sections (code, constant pools, data); -1 if unreadable. */
static int64_t
elf_alloc_bytes(const char *path)
{
    elf_obj e;
    int64_t total = 0;
    int i;
    if (elf_load(path, &e) < 0)
        return -1;
    for (i = 0; i < elf_nsections(&e); i++) {
        uint32_t type, link;
        uint64_t flags, off, size;
        elf_section(&e, i, &type, &flags, &off, &size, &link);
        if ((flags & 2) && type != 8) /* SHF_ALLOC, not SHT_NOBITS (.bss is RAM) */
            total += (int64_t)size;
    }
    free(e.b);
    return total;
}

/* st_size of the symbol named `name` in the object, 0 when absent. */
static int64_t
elf_symbol_size(const elf_obj *e, const char *name)
{
    int i;
    for (i = 0; e->b && i < elf_nsections(e); i++) {
        uint32_t type, link, stype, slink;
        uint64_t flags, off, size, soff, ssize, sflags, k;
        size_t ent = e->is64 ? 24 : 16;
        elf_section(e, i, &type, &flags, &off, &size, &link);
        if (type != 2) /* SHT_SYMTAB */
            continue;
        elf_section(e, (int)link, &stype, &sflags, &soff, &ssize, &slink);
        for (k = 0; k + ent <= size; k += ent) {
            size_t s = (size_t)(off + k);
            uint64_t nm = rd(e, s, 4);
            uint64_t sz = rd(e, s + (e->is64 ? 16 : 8), e->is64 ? 8 : 4);
            if (nm < ssize && soff + nm < e->n &&
                strncmp((const char *)e->b + soff + nm, name, (size_t)(ssize - nm)) == 0)
                return (int64_t)sz;
        }
    }
    return 0;
}

/* --- the report ------------------------------------------------------------------------ */

static void
json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 32)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int64_t
tensor_bytes(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return (n > 0 ? n : 1) * (int64_t)ir_dtype_size(t->dtype);
}

/* The weights of call c a format applies to (passes/lowp.c), as D x [K, GH] each: G1 and G2
 * of the exact schedule, a tissue's U panels, DRS's U_o and U_f,i,c (issue 24). Returns how
 * many (at most 2), their input slots in slot[], their shapes in dk[][3]. */
static int
lowp_weights_of(const kp_call *c, int slot[2], int64_t dk[2][3])
{
    const lstmc_rt_rnn_params *r = c->kind == KP_LSTM_DRS ? &c->p.drs.p
                                   : c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS
                                       ? &c->p.tissue.p.rnn
                                       : &c->p.rnn;
    const int64_t H = r->hidden, D = r->n_dirs;

    if (c->kind == KP_RNN_PROJ && c->p.proj.packed) {
        slot[0] = 1;
        dk[0][0] = c->p.proj.n_dirs;
        dk[0][1] = c->p.proj.input_size;
        dk[0][2] = (c->p.proj.cell == 0 ? 4 : c->p.proj.cell == 1 ? 3 : 1) * c->p.proj.hidden;
        return 1;
    }
    if ((c->kind == KP_RNN_REC || c->kind == KP_LSTM_TISSUE) && r->packed) {
        slot[0] = 1;
        dk[0][0] = D;
        dk[0][1] = H;
        dk[0][2] = (r->cell == 0 ? 4 : r->cell == 1 ? 3 : 1) * H;
        return 1;
    }
    if (c->kind == KP_LSTM_DRS || c->kind == KP_LSTM_TISSUE_DRS) {
        slot[0] = c->kind == KP_LSTM_DRS ? 1 : 9;
        slot[1] = slot[0] + 1;
        dk[0][0] = dk[1][0] = D;
        dk[0][1] = dk[1][1] = H;
        dk[0][2] = H;
        dk[1][2] = 3 * H;
        return 2;
    }
    return 0;
}

/*
 * Issue 12: "weights_format" (the storage of G1/G2, passes/lowp.c) and what the weights
 * would take in flash in each format: the other constants as they are, every weight a format
 * applies to (lowp_weights_of: D x [K, GH]) at lstmc_rt_lowp_bytes (whole 4-byte words). The
 * arena does not depend on it.
 */
void
cg_weights_per_format(const ir_graph *g, const kprog *kp, const memplan *mp, int64_t weights,
                      int64_t per[4], int *fmt)
{
    unsigned char *seen = calloc((size_t)g->n_tensors + 1, 1);
    int64_t lowp = 0, dk[2][3];
    int i, k, q, n, slot[2];
    *fmt = 0;
    for (k = 0; k < 4; k++)
        per[k] = 0;
    for (i = 0; seen && i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        n = lowp_weights_of(c, slot, dk);
        for (q = 0; q < n; q++) {
            const ir_tensor *w = slot[q] < c->n_in ? c->in[slot[q]] : NULL;
            if (!w || mp->tensor[w->id].kind != MEMPLAN_CONST || seen[w->id])
                continue;
            seen[w->id] = 1;
            *fmt = c->wfmt ? c->wfmt : *fmt;
            lowp += tensor_bytes(w);
            for (k = 0; k < 4; k++)
                per[k] += (lstmc_rt_lowp_bytes(k, dk[q][0], dk[q][1], dk[q][2]) + 3) / 4 * 4;
        }
    }
    free(seen);
    for (k = 0; k < 4; k++)
        per[k] += weights - lowp;
}

/*
 * Issue 12: "weights_format" (the storage of G1/G2, passes/lowp.c) and what the weights
 * would take in flash in each format: the other constants as they are, every packed G1/G2 of
 * D x [K, G*H] at lstmc_rt_lowp_bytes (whole 4-byte words). The arena does not depend on it.
 */
static void
put_weights_per_format(FILE *f, const ir_graph *g, const kprog *kp, const memplan *mp,
                       int64_t weights)
{
    int64_t per[4];
    int k, fmt;
    cg_weights_per_format(g, kp, mp, weights, per, &fmt);
    fprintf(f, "  \"weights_format\": \"%s\",\n  \"weights_per_format\": {", lowp_name(fmt));
    for (k = 0; k < 4; k++)
        fprintf(f, "%s\"%s\": %lld", k ? ", " : "", lowp_name(k), (long long)per[k]);
    fputs("},\n", f);
}

/*
 * Issue 22: which calls run in integers (the full-integer layers, and data movement of
 * integer tensors), which convert at the float boundary (lstmc.Quantize / .Dequantize), and
 * which compute in float; printed only when the program has integer layers or conversions.
 */
static void
put_activations(FILE *f, const kprog *kp)
{
    static const char *const what[3] = {"integer", "conversions", "float"};
    int i, w, bits = 0, any = 0, first;
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        if (c->kind == KP_RNN_Q && c->p.rnnq.bits > bits)
            bits = c->p.rnnq.bits;
        any |= c->kind == KP_RNN_Q || c->kind == KP_QUANT || c->kind == KP_DEQUANT;
    }
    if (!any)
        return;
    fprintf(f, "  \"activations\": {\"mode\": \"%s\"",
            bits ? (bits == 8 ? "int8" : "int16") : "fp32");
    for (w = 0; w < 3; w++) {
        fprintf(f, ", \"%s\": [", what[w]);
        first = 1;
        for (i = 0; i < kp->n_calls; i++) {
            const kp_call *c = &kp->calls[i];
            const ir_tensor *o = c->out[0];
            int k = c->kind == KP_QUANT || c->kind == KP_DEQUANT ? 1
                    : c->kind == KP_RNN_Q || (o && (o->dtype == IR_DT_I8 || o->dtype == IR_DT_I16))
                        ? 0
                        : 2;
            char label[480];
            if (k != w || !c->node)
                continue;
            ir_node_label(c->node, label, sizeof label);
            fputs(first ? "" : ", ", f);
            json_str(f, label);
            first = 0;
        }
        fputs("]", f);
    }
    fputs("},\n", f);
}

int64_t
cg_const_bytes(const ir_graph *g, const memplan *mp)
{
    int64_t weights = 0;
    int i;
    for (i = 0; i < g->n_tensors; i++)
        if (mp->tensor[i].kind == MEMPLAN_CONST)
            weights += tensor_bytes(g->tensors[i]);
    return weights;
}

/*
 * Issue 23: the LLVM kernel parameters of node n's recurrent products and projections, or of
 * its full-integer VNNI kernel ("int": tile, rows, alternate, pipe) (the calls from i on), and
 * which of them the target profile set:
 *   , "kernels": [{"kind": "rec", "class": "llc", "vector_bits": 512, "tile": 8,
 *                  "prefetch": 8, "from_profile": ["tile"]}, ...]
 * nothing when the node has none (the C kernels run it, or no such call).
 */
static void
put_tuning(FILE *f, const kprog *kp, int i, const ir_node *n)
{
    const char *const *names = target_kernel_param_names;
    static const unsigned char shown[4][TK_N_PARAMS] = {
        {0}, {1, 0, 1, 1, 1, 0}, {1, 1, 1, 0, 1, 0}, {1, 1, 0, 1, 0, 1}};
    int j, k, first = 1, firstp;
    for (j = i; j < kp->n_calls; j++) {
        const kp_tuning *t = &kp->calls[j].tune;
        if (kp->calls[j].node != n || !t->kind)
            continue;
        fprintf(f, "%s{\"kind\": \"%s\", \"class\": \"%s\", \"vector_bits\": %d",
                first ? ", \"kernels\": [" : ", ",
                t->kind == 1   ? "rec"
                : t->kind == 2 ? "proj"
                               : "int",
                target_class_names[t->cls], t->vector_bits);
        for (k = 0; k < TK_N_PARAMS; k++)
            if (shown[t->kind][k] && (k != TK_DOT || kp->calls[j].wfmt == LSTMC_RT_WFMT_BF16))
                fprintf(f, ", \"%s\": %d", names[k], t->v[k]);
        fputs(", \"from_profile\": [", f);
        firstp = 1;
        if (t->vector_set) {
            fputs("\"vector_bits\"", f);
            firstp = 0;
        }
        for (k = 0; k < TK_N_PARAMS; k++)
            if (t->set[k]) {
                fprintf(f, "%s\"%s\"", firstp ? "" : ", ", names[k]);
                firstp = 0;
            }
        fputs("]}", f);
        first = 0;
    }
    if (!first)
        fputs("]", f);
}

int
cg_size_report(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
               int64_t arena_bytes, int64_t stream_arena, int64_t state_bytes,
               int64_t stream_weights, diag *d)
{
    char path[4200], tmp[4300], obj[4200];
    unsigned char *seen = calloc((size_t)g->n_tensors + 1, 1);
    elf_obj e = {0};
    int64_t weights = 0, llvm = 0, llvm_s = 0;
    int i, j, first = 1, streams;
    FILE *f;

    if (!seen) {
        diag_error(d, "out of memory");
        return -1;
    }
    weights = cg_const_bytes(g, mp);
    snprintf(obj, sizeof obj, "%s/%s_kernels.o", o->outdir, o->name);
    if (o->llvm && (llvm = elf_alloc_bytes(obj)) > 0)
        elf_load(obj, &e);
    if (llvm < 0)
        llvm = 0;
    snprintf(obj, sizeof obj, "%s/%s_stream_kernels.o", o->outdir, o->name);
    if (o->llvm && (llvm_s = elf_alloc_bytes(obj)) < 0)
        llvm_s = 0;

    snprintf(path, sizeof path, "%s/%s_size.json", o->outdir, o->name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) {
        diag_error(d, "cannot write '%s'", tmp);
        free(seen);
        free(e.b);
        return -1;
    }
    fputs("{\n  \"format\": \"lstmc-size-1\",\n  \"name\": ", f);
    json_str(f, o->name);
    fputs(",\n  \"target\": ", f);
    json_str(f, o->target ? o->target : "host");
    if (o->dims) { /* issue 21: the sizes below are at every ranged dim's MAX */
        int k;
        fputs(",\n  \"ranged_dims\": [", f);
        for (k = 0; k < o->dims->n; k++) {
            fputs(k ? ", {\"name\": " : "{\"name\": ", f);
            json_str(f, o->dims->name[k]);
            fprintf(f, ", \"min\": %lld, \"max\": %lld}", (long long)o->dims->min[k],
                    (long long)o->dims->max[k]);
        }
        fputs("]", f);
    }
    fprintf(f,
            ",\n  \"flash\": {\"weights\": %lld, \"stream_weights\": %lld, \"llvm_kernels\": "
            "%lld, \"stream_llvm_kernels\": %lld,\n            \"known_total\": %lld, "
            "\"c_code\": \"not measured: run make size in this folder\"},\n",
            (long long)weights, (long long)stream_weights, (long long)llvm, (long long)llvm_s,
            (long long)(weights + stream_weights + llvm + llvm_s));
    put_weights_per_format(f, g, kp, mp, weights);
    put_activations(f, kp);
    /* a model that does not stream has a <name>_state (its _step says so) that nothing
     * needs: counted nowhere, and no streaming-only total */
    streams = cg_c_streams(o);
    fprintf(f,
            "  \"ram\": {\"arena\": %lld, \"run_arena\": %lld, \"stream_arena\": %lld, "
            "\"state\": %lld,\n          \"total\": %lld, \"stream_only_total\": %lld},\n"
            "  \"layers\": [",
            (long long)arena_bytes, (long long)mp->arena_size, (long long)stream_arena,
            (long long)state_bytes, (long long)(arena_bytes + (streams ? state_bytes : 0)),
            (long long)(streams ? stream_arena + state_bytes : 0));
    for (i = 0; i < kp->n_calls; i++) {
        const ir_node *n = kp->calls[i].node;
        int64_t w = 0, ram = 0, code = 0;
        if (!n)
            continue;
        for (j = 0; j < i; j++)
            if (kp->calls[j].node == n)
                break;
        if (j < i)
            continue; /* this node's calls were reported with its first */
        for (j = i; j < kp->n_calls; j++) {
            const kp_call *c = &kp->calls[j];
            int k;
            char sym[256];
            if (c->node != n)
                continue;
            for (k = 0; k < c->n_in; k++)
                if (c->in[k] && mp->tensor[c->in[k]->id].kind == MEMPLAN_CONST &&
                    !seen[c->in[k]->id]) {
                    seen[c->in[k]->id] = 1;
                    w += tensor_bytes(c->in[k]);
                }
            for (k = 0; k < c->n_out; k++)
                if (c->out[k] && mp->tensor[c->out[k]->id].kind == MEMPLAN_ARENA)
                    ram += tensor_bytes(c->out[k]);
            if (c->scratch_bytes > 0)
                ram += c->scratch_bytes;
            snprintf(sym, sizeof sym, "%s_k%d", o->name, j);
            code += elf_symbol_size(&e, sym);
        }
        fputs(first ? "\n    {\"node\": " : ",\n    {\"node\": ", f);
        json_str(f, n->name);
        fputs(", \"op\": ", f);
        json_str(f, n->op_type);
        fprintf(f, ", \"weights\": %lld, \"arena_working_set\": %lld, \"llvm_code\": %lld",
                (long long)w, (long long)ram, (long long)code);
        put_tuning(f, kp, i, n);
        fputs("}", f);
        first = 0;
    }
    fputs("\n  ]\n}\n", f);
    free(seen);
    free(e.b);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        diag_error(d, "cannot write '%s'", path);
        remove(tmp);
        return -1;
    }
    printf("lstmc: %s: flash %lld B known (weights %lld + LLVM kernels %lld; host code and C "
           "runtime: make size), ",
           o->name, (long long)(weights + stream_weights + llvm + llvm_s),
           (long long)(weights + stream_weights), (long long)(llvm + llvm_s));
    if (streams)
        printf("RAM %lld B (arena %lld + stream state %lld; streaming only: %lld)",
               (long long)(arena_bytes + state_bytes), (long long)arena_bytes,
               (long long)state_bytes, (long long)(stream_arena + state_bytes));
    else
        printf("RAM %lld B (arena; the model does not stream)", (long long)arena_bytes);
    printf("; per layer: %s_size.json\n", o->name);
    for (i = j = 0; i < kp->n_calls; i++) /* issue 23 */
        j += kp->calls[i].tune.vector_set || kp->calls[i].tune.set[TK_TILE] ||
             kp->calls[i].tune.set[TK_ROWS] || kp->calls[i].tune.set[TK_PREFETCH] ||
             kp->calls[i].tune.set[TK_ALTERNATE] || kp->calls[i].tune.set[TK_DOT] ||
             kp->calls[i].tune.set[TK_PIPE];
    if (j)
        printf("lstmc: %s: %d kernel(s) compiled with parameters from target profile '%s' "
               "(per layer: \"kernels\" in %s_size.json)\n",
               o->name, j, o->target ? o->target : "host", o->name);
    fflush(stdout);
    return 0;
}

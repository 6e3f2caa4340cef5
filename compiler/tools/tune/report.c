/*
 * report.c — what `lstmc tune` shows: the table of the sets (stdout and TUNED.txt) and the
 * Fig. 19 style plot (TUNED.svg) of MICRO'18 §VI-C.
 */
#include "arena.h"
#include "calibrate.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"
#include "outdir.h"
#include "proc.h"
#include "target.h"
#include "tune_impl.h"
#include "tuned.h"
#include "wfmt.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- reporting -------------------------------------------------------------------------- */

/* The work sub-folder of the exact schedule with its weights in fmt. */
/* What a set's or window's weights are: "fp16", "int8", or "act-int8" (integer layers). */
const char *
tune_variant_name(tune_run *r, const tune_point *p)
{
    return p->act ? arena_printf(r->a, "act-int%d", p->act) : lowp_name(p->wfmt);
}

const char *
tune_point_sub(tune_run *r, const tune_point *p)
{
    const char *v = p->act ? arena_printf(r->a, "act_int%d", p->act) : lowp_name(p->wfmt);
    if (p->max_run)
        return p->wfmt ? arena_printf(r->a, "approx_w%d_%s", p->max_run, v)
                       : arena_printf(r->a, "approx_w%d", p->max_run);
    if (p->set)
        return arena_printf(r->a, "approx_%s", v);
    if (p->act || p->wfmt != LSTMC_RT_WFMT_FP32)
        return tune_fmt_sub(r, p->wfmt, p->act);
    return "approx";
}

const char *
tune_fmt_sub(tune_run *r, int fmt, int act)
{
    return act ? arena_printf(r->a, "exact_act_int%d", act)
               : arena_printf(r->a, "exact_%s", lowp_name(fmt));
}

/* "set 3", or "the exact schedule with fp16 weights". */
const char *
tune_point_name(tune_run *r, const tune_point *p, int i)
{
    if (p[i].max_run)
        return p[i].act ? arena_printf(r->a, "breakpoints forced every <= %d cells in int%d layers",
                                       p[i].max_run, p[i].act)
               : p[i].wfmt
                   ? arena_printf(r->a, "breakpoints forced every <= %d cells with %s weights",
                                  p[i].max_run, lowp_name(p[i].wfmt))
                   : arena_printf(r->a, "breakpoints forced every <= %d cells", p[i].max_run);
    if (p[i].set)
        return p[i].act ? arena_printf(r->a, "set %d in int%d layers", p[i].set - 1, p[i].act)
                        : arena_printf(r->a, "set %d with %s weights", p[i].set - 1,
                                       lowp_name(p[i].wfmt));
    return p[i].act ? arena_printf(r->a, "the exact schedule with int%d activations", p[i].act)
           : p[i].wfmt != LSTMC_RT_WFMT_FP32
               ? arena_printf(r->a, "the exact schedule with %s weights", lowp_name(p[i].wfmt))
               : arena_printf(r->a, "set %d", i);
}

/* The first column of point i: the set's number (and its weights' format), or the weights'
 * format, or the window. */
static void
point_label(char *buf, size_t n, const tune_point *p, int i)
{
    char v[16];
    if (p[i].act)
        snprintf(v, sizeof v, "act-int%d", p[i].act);
    else
        snprintf(v, sizeof v, "%s", lowp_name(p[i].wfmt));
    if (p[i].max_run)
        snprintf(buf, n, "win %d%s%s", p[i].max_run, p[i].wfmt ? " " : "", p[i].wfmt ? v : "");
    else if (p[i].set)
        snprintf(buf, n, "%d %s", p[i].set - 1, v);
    else if (p[i].act)
        snprintf(buf, n, "act-int%d", p[i].act);
    else if (p[i].wfmt != LSTMC_RT_WFMT_FP32)
        snprintf(buf, n, "%s", lowp_name(p[i].wfmt));
    else
        snprintf(buf, n, "%d", i);
}

void
tune_table(FILE *f, const tune_run *r, const tune_point *p, int n, int ao, int bpa)
{
    int i;
    fprintf(f,
            "| set | alpha_inter | alpha_intra | tissues/layer | rows skipped | accuracy | "
            "normalised | median us | speed-up%s |\n",
            r->measured ? "" : " (estimated)");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    fprintf(f, "| exact | - | - | %lld | - | %.4f | 1.0000 | %.1f | 1.00x |\n", (long long)r->T,
            r->exact_acc_tune, r->exact_us);
    for (i = 0; i < n; i++) {
        char tis[32], label[40];
        if (p[i].tissues > 0) /* 0: no layer in tissues (--vary=intra, a format candidate) */
            snprintf(tis, sizeof tis, "%.2f", p[i].tissues);
        else
            snprintf(tis, sizeof tis, "-");
        point_label(label, sizeof label, p, i);
        fprintf(f, "| %s%s%s | %.6g | %.6g | %s | %.1f %% | %.4f | %.4f | %.1f | %.2fx |\n", label,
                i == ao ? " AO" : "", i == bpa ? " BPA" : "", p[i].alpha_inter, p[i].alpha_intra,
                tis, 100 * p[i].skipped, p[i].accuracy, p[i].norm_acc, p[i].us, p[i].speedup);
    }
}

/* The Fig. 19 style plot: speed-up (bars) and normalised accuracy (line) per set. */
int
tune_svg(const char *path, const tune_run *r, const tune_point *p, int n, int ao, int bpa,
         double pref)
{
    FILE *f = fopen(path, "w");
    const double W = 640, H = 360, x0 = 60, y0 = 40, pw = 520, ph = 260;
    double smax = 1, bw = pw / n;
    char label[40];
    int i;
    if (!f)
        return -1;
    for (i = 0; i < n; i++)
        if (p[i].speedup > smax)
            smax = p[i].speedup;
    smax = ceil(smax * 1.1 * 2) / 2;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%g\" y=\"20\" font-size=\"14\">lstmc tune: speed-up%s and "
            "accuracy per threshold set (accuracy kept: %.3g)</text>\n",
            W, H, x0, r->measured ? "" : " (estimated)", pref);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0, y0 + ph,
            x0 + pw, y0 + ph);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0, y0, x0,
            y0 + ph);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0 + pw, y0,
            x0 + pw, y0 + ph);
    for (i = 0; i <= 4; i++) {
        double y = y0 + ph - ph * i / 4.0;
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.2gx</text>\n", x0 - 4, y + 4,
                smax * i / 4.0);
        fprintf(f, "<text x=\"%g\" y=\"%g\">%d%%</text>\n", x0 + pw + 4, y + 4, 25 * i);
    }
    /* speed-up 1 (the exact schedule) */
    fprintf(f,
            "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"gray\" "
            "stroke-dasharray=\"4\"/>\n",
            x0, y0 + ph - ph / smax, x0 + pw, y0 + ph - ph / smax);
    for (i = 0; i < n; i++) {
        double h = ph * p[i].speedup / smax, x = x0 + i * bw;
        point_label(label, sizeof label, p, i);
        fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"%s\"/>\n",
                x + bw * 0.15, y0 + ph - h, bw * 0.7, h,
                i == ao    ? "#2a9d8f"
                : i == bpa ? "#e9c46a"
                           : "#8ab6d6");
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s%s</text>\n", x + bw / 2,
                y0 + ph + 16, label,
                i == ao    ? " AO"
                : i == bpa ? " BPA"
                           : "");
    }
    fputs("<polyline fill=\"none\" stroke=\"#d62828\" stroke-width=\"2\" points=\"", f);
    for (i = 0; i < n; i++)
        fprintf(f, "%g,%g ", x0 + i * bw + bw / 2, y0 + ph - ph * fmin(fmax(p[i].norm_acc, 0), 1));
    fputs("\"/>\n", f);
    fprintf(f,
            "<text x=\"%g\" y=\"%g\">bars: speed-up over the exact schedule (left); red: "
            "accuracy / exact accuracy (right); threshold set 0..10%s</text>\n",
            x0, H - 12,
            n > TUNE_SETS ? ", then formats, windows and sets with reduced weights" : "");
    fputs("</svg>\n", f);
    return fclose(f);
}

/* Append the file at from to b. 0, or -1. */
int
tune_cat_file(const char *from, FILE *b)
{
    FILE *a = fopen(from, "rb");
    char buf[65536];
    size_t n;
    int bad = 0;
    if (!a)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        bad |= fwrite(buf, 1, n, b) != n;
    bad |= ferror(a);
    fclose(a);
    return bad ? -1 : 0;
}

int
tune_copy_file(const char *from, const char *to)
{
    FILE *b = fopen(to, "wb");
    int bad;
    if (!b)
        return -1;
    bad = tune_cat_file(from, b);
    return (fclose(b) != 0 || bad) ? -1 : 0;
}

/*
 * model.c — the E-LSTM accelerator's time model (elstm.h, docs/ELSTM.md): the fusion factor
 * N_fuse by Eq. 6 under the Eq. 7 buffer limits (§3.2.4), and a behavioural cycle model fed
 * with the real eSELL word counts. The RoCC program itself is rocc.c.
 */
#include "elstm.h"

#include <math.h>

#include "arena.h"
#include "esell.h"

const elstm_profile elstm_default_profile = {
    "elstm", 3, 4, 64, 16, (int64_t)16 << 10, (int64_t)64 << 10,
};

/* --- Eq. 6 / Eq. 7 ------------------------------------------------------------------- */

double
elstm_eq6(const elstm_profile *p, const elstm_layer *l, int nfuse, elstm_time *out)
{
    elstm_time t;
    /* Eq. 6 counts weights / 4: one RoCC word of 4 fp16 feeds one 4-MACC PE per cycle */
    double vpw = (double)(p->rocc_bits / p->value_bits);
    double scale = 4.0 / vpw;
    int64_t group = (int64_t)(p->n_pe - 1) * nfuse;
    t.twx = scale * (double)l->x * (double)l->h * (1 - l->spw);
    t.tuh = scale * (double)l->h * (double)l->h * (1 - l->spu) * (1 - l->sph);
    t.prolog = t.twx * nfuse;
    t.iter = t.prolog +
             fmax(0.0, t.tuh * nfuse * (p->n_pe - 1) - t.prolog * (nfuse - 1) / nfuse);
    t.main = (double)((l->ts + group - 1) / group - 1) * t.iter;
    t.epilog = (double)((l->ts - 1) % group + 1) * t.tuh;
    t.total = t.prolog + t.main + t.epilog;
    if (out)
        *out = t;
    return t.total;
}

int
elstm_feasible(const elstm_profile *p, const elstm_layer *l, int nfuse)
{
    int64_t k = (int64_t)nfuse * p->n_pe;
    return nfuse >= 1 && p->n_pe >= 2 && k <= l->ts && k * l->x <= p->buf_x &&
           k * 4 * l->h <= p->buf_wx;
}

int
elstm_choose_nfuse(const elstm_profile *p, const elstm_layer *l, double *t_out)
{
    int n, best = 0;
    double best_t = 0;
    /* the feasible field is 1..ts/N_pe; the buffer limits only shrink it from above */
    for (n = 1; (int64_t)n * p->n_pe <= l->ts; n++) {
        double t;
        if (!elstm_feasible(p, l, n))
            continue;
        t = elstm_eq6(p, l, n, NULL);
        if (!best || t < best_t) {
            best = n;
            best_t = t;
        }
    }
    if (t_out)
        *t_out = best_t;
    return best;
}

/* --- cycle model ----------------------------------------------------------------------- */

/* One consumer of RoCC words: a one-word input register and a PE busy for `cost` cycles per
 * word. */
typedef struct engine {
    int active, buf;
    int64_t total, fetched, busy, cost;
} engine;

static void
engine_start(engine *e, int64_t words, int64_t cost)
{
    e->active = 1;
    e->buf = 0;
    e->total = words;
    e->fetched = 0;
    e->busy = 0;
    e->cost = cost;
}

/* The PE takes the word in its register when it is free. */
static void
engine_take(engine *e)
{
    if (e->active && !e->busy && e->buf) {
        e->buf = 0;
        e->busy = e->cost;
    }
}

static int
engine_wants(const engine *e)
{
    return e->active && !e->buf && e->fetched < e->total;
}

static int
engine_finished(const engine *e)
{
    return e->active && e->fetched == e->total && !e->buf && !e->busy;
}

static int64_t
step_words(const elstm_sim_layer *l, int64_t t)
{
    int64_t c, n = 0;
    for (c = 0; c < l->n_ucols; c++)
        if (!l->u_keep || l->u_keep[t * l->n_ucols + c])
            n += l->u_col_words[c];
    return n;
}

int64_t
elstm_simulate(const elstm_profile *p, const elstm_sim_layer *l, int nfuse,
               elstm_sim_stats *st)
{
    int64_t group = (int64_t)(p->n_pe - 1) * nfuse, n_groups = (l->ts + group - 1) / group;
    int64_t vpw = p->rocc_bits / p->value_bits;
    int64_t w_cost = (nfuse * vpw + p->macc_per_pe - 1) / p->macc_per_pe;
    int64_t u_cost = (vpw + p->macc_per_pe - 1) / p->macc_per_pe;
    int64_t cycle = 0, w_group = 0, w_done = 0, u_step = 0;
    engine w = {0}, u = {0};
    elstm_sim_stats s = {0};
    while (u_step < l->ts) {
        /* W x of group g: group g-1 computed, U h of group g-2 consumed (BUF_wx halves) */
        if (!w.active && w_group < n_groups &&
            (w_group < 2 || u_step >= (w_group - 1) * group)) {
            engine_start(&w, l->w_words, w_cost);
        }
        /* U h_t: W x of its group ready, h_{t-1} ready; an all-pruned step loads nothing */
        while (!u.active && u_step < l->ts && w_done > u_step / group) {
            int64_t n = step_words(l, u_step);
            if (n > 0) {
                engine_start(&u, n, u_cost);
                break;
            }
            u_step++;
        }
        if (u_step >= l->ts)
            break;
        if (!w.active && !u.active)
            return -1; /* nothing can run: a broken dependency, never a hang */
        engine_take(&w);
        engine_take(&u);
        /* the port: one word, W first (its PEs idle otherwise; U fills the gaps, Fig. 8) */
        if (engine_wants(&w)) {
            w.buf = 1;
            w.fetched++;
            s.w_words++;
        } else if (engine_wants(&u)) {
            u.buf = 1;
            u.fetched++;
            s.u_words++;
        } else {
            s.rocc_idle++;
        }
        if (w.busy)
            w.busy--;
        if (u.busy)
            u.busy--;
        cycle++;
        if (engine_finished(&w)) {
            w.active = 0;
            w_group++;
            w_done++;
        }
        if (engine_finished(&u)) {
            u.active = 0;
            u_step++;
        }
    }
    s.cycles = cycle;
    if (st)
        *st = s;
    return cycle;
}

int
elstm_sim_prepare(arena *a, const esell *w, const esell *u, int64_t ts, double sph,
                  uint64_t seed, elstm_sim_layer *out)
{
    int64_t *cols = arena_alloc(a, (size_t)u->nbc * sizeof *cols), i;
    unsigned char *keep = NULL;
    if (!cols)
        return -1;
    for (i = 0; i < u->nbc; i++)
        cols[i] = esell_rocc_col_words(u, i);
    if (sph > 0) {
        keep = arena_alloc(a, (size_t)(ts * u->nbc));
        if (!keep)
            return -1;
        for (i = 0; i < ts * u->nbc; i++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            keep[i] = (double)(seed >> 11) / 9007199254740992.0 >= sph;
        }
    }
    out->ts = ts;
    out->w_words = esell_rocc_words(w);
    out->n_ucols = u->nbc;
    out->u_col_words = cols;
    out->u_keep = keep;
    return 0;
}

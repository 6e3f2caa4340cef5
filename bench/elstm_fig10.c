/*
 * elstm_fig10.c — E-LSTM Fig. 10: cycles per sequence of the Table 2 layers on the elstm
 * accelerator (3 PEs of 4 MACC, 64-bit RoCC) in three settings, from the cycle model of
 * codegen/elstm/elstm.c fed with the eSELL streams of random matrices at the Table 2 sparsities:
 *
 *   original   Sph = 0, N_fuse = 1
 *   sparse h   Sph of Table 2, N_fuse = 1
 *   E-LSTM     Sph of Table 2, N_fuse chosen by Eq. 6 under Eq. 7
 *
 *   elstm_fig10            a Markdown table (cycles, speed-ups, N_fuse, Eq. 6's prediction,
 *                          and the N_fuse the cycle model itself finds best)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arena.h"
#include "elstm.h"
#include "esell.h"

static uint64_t state = 666;

static float *
matrix(int64_t rows, int64_t cols, double sp)
{
    float *m = malloc((size_t)(rows * cols) * sizeof *m);
    int64_t i;
    if (!m)
        return NULL;
    for (i = 0; i < rows * cols; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        m[i] = (double)(state >> 11) / 9007199254740992.0 < sp ? 0.0f : 0.5f;
    }
    return m;
}

int
main(void)
{
    static const struct { const char *name; int x, h, ts; double spw, spu, sph, paper; } t2[] = {
        {"MNIST-LSTM1", 28, 128, 28, 0.3, 0.5, 0.22, 0},
        {"MNIST-LSTM2", 128, 128, 28, 0.2, 0.4, 0.29, 0},
        {"PTB-LSTM1", 800, 800, 35, 0.2, 0.5, 0.56, 2.2},
        {"PTB-LSTM2", 800, 800, 35, 0.2, 0.6, 0.41, 0},
        {"Wiki-LSTM1", 1500, 1500, 35, 0.4, 0.5, 0.37, 0},
        {"Wiki-LSTM2", 1500, 1500, 35, 0.3, 0.4, 0.39, 0},
    };
    const elstm_profile *p = &elstm_default_profile;
    int k;
    printf("| layer | original cycles | sparse h | speed-up | E-LSTM | speed-up | N_fuse "
           "(Eq. 6) | Eq. 6 speed-ups | best N_fuse in the model (speed-up) |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (k = 0; k < (int)(sizeof t2 / sizeof t2[0]); k++) {
        arena *a = arena_new(0);
        float *w = matrix(4 * t2[k].h, t2[k].x, t2[k].spw);
        float *u = matrix(4 * t2[k].h, t2[k].h, t2[k].spu);
        esell ew, eu;
        elstm_sim_layer dense_h, sparse_h;
        elstm_layer l = {t2[k].x, t2[k].h, t2[k].ts, t2[k].spw, t2[k].spu, 0};
        int64_t c0, c1, cf, cbest = 0;
        int nf, n, nbest = 0;
        double e0, e1, ef;
        if (!w || !u || esell_encode(a, w, 4 * t2[k].h, t2[k].x, &ew) != 0 ||
            esell_encode(a, u, 4 * t2[k].h, t2[k].h, &eu) != 0 ||
            elstm_sim_prepare(a, &ew, &eu, t2[k].ts, 0, 1, &dense_h) != 0 ||
            elstm_sim_prepare(a, &ew, &eu, t2[k].ts, t2[k].sph, 7 + (uint64_t)k, &sparse_h) != 0)
            return 1;
        e0 = elstm_eq6(p, &l, 1, NULL);
        l.sph = t2[k].sph;
        e1 = elstm_eq6(p, &l, 1, NULL);
        nf = elstm_choose_nfuse(p, &l, &ef);
        c0 = elstm_simulate(p, &dense_h, 1, NULL);
        c1 = elstm_simulate(p, &sparse_h, 1, NULL);
        cf = elstm_simulate(p, &sparse_h, nf, NULL);
        for (n = 1; elstm_feasible(p, &l, n); n++) {
            int64_t c = elstm_simulate(p, &sparse_h, n, NULL);
            if (!nbest || c < cbest) {
                nbest = n;
                cbest = c;
            }
        }
        printf("| %s | %lld | %lld | %.2fx | %lld | %.2fx | %d | %.2fx / %.2fx | %d (%.2fx) |\n",
               t2[k].name, (long long)c0, (long long)c1, (double)c0 / (double)c1,
               (long long)cf, (double)c0 / (double)cf, nf, e0 / e1, e0 / ef, nbest,
               (double)c0 / (double)cbest);
        free(w);
        free(u);
        arena_free(a);
    }
    return 0;
}

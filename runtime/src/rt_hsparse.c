/*
 * rt_hsparse.c — the recurrent product U h_{t-1} with E-LSTM's hidden-state sparsity
 * (../shared/papers/elstm-embedded-sparse-lstm.txt §3.2.2, §4.4): h is pruned at run time in
 * groups of four elements (one eSELL chunk column on the accelerator), a group counting as
 * zero when the sum of its magnitudes is below the layer's threshold th, and the columns of U
 * a zero group multiplies are skipped, not loaded. Contract in lstmc_rt_kernels.h.
 *
 * The arithmetic order is rt_rnn.c's (k ascending for packed weights, one dot product per
 * row otherwise), so a run where nothing is pruned gives the same bits as the dense kernel.
 */
#include "lstmc_rt_kernels.h"
#include "internal/testing.h"

#ifdef LSTMC_RT_HSPARSE_STATS
int64_t lstmc_rt_hsparse_groups, lstmc_rt_hsparse_skipped;
#endif

#define GROUP 4

/* 1 when group j of h (elements 4j .. 4j+3, clipped to H) is kept. */
static int
group_kept(const float *h, int64_t H, int64_t j, float th)
{
    int64_t k, end = (j + 1) * GROUP < H ? (j + 1) * GROUP : H;
    float s = 0.0f;
    for (k = j * GROUP; k < end; k++)
        s += h[k] < 0.0f ? -h[k] : h[k];
    return !(s < th);
}

/* Group j's verdict: from the mask for the first 64 * 32 groups, recomputed past them. */
static int
is_kept(const uint32_t *kept, int64_t cached, const float *h, int64_t H, int64_t j, float th)
{
    return j < cached ? (int)(kept[j / 32] >> (j % 32) & 1) : group_kept(h, H, j, th);
}

void
lstmc_rt_hsparse_accumulate(const float *h, const float *r, int64_t H, int64_t ld,
                            int64_t col0, int64_t n, int32_t packed, float th,
                            float *restrict gates)
{
    int64_t n_groups = (H + GROUP - 1) / GROUP, j, k, g;
    /* the verdicts as a bitmask on the stack (no malloc), for H up to 8192; a bigger layer
     * recomputes the rest */
    uint32_t kept[64];
    const int64_t cached = n_groups < 64 * 32 ? n_groups : 64 * 32;

    for (j = 0; j < cached; j++) {
        if (j % 32 == 0)
            kept[j / 32] = 0;
        if (group_kept(h, H, j, th))
            kept[j / 32] |= (uint32_t)1 << (j % 32);
    }
#ifdef LSTMC_RT_HSPARSE_STATS
    lstmc_rt_hsparse_groups += n_groups;
    for (j = 0; j < n_groups; j++)
        lstmc_rt_hsparse_skipped += !is_kept(kept, cached, h, H, j, th);
#endif
    if (packed) { /* U' [H, ld]: rows of a skipped group are not touched */
        for (j = 0; j < n_groups; j++) {
            int64_t end = (j + 1) * GROUP < H ? (j + 1) * GROUP : H;
            if (!is_kept(kept, cached, h, H, j, th))
                continue;
            for (k = j * GROUP; k < end; k++) {
                const float hk = h[k];
                const float *restrict row = r + k * ld + col0;
                for (g = 0; g < n; g++)
                    gates[g] += hk * row[g];
            }
        }
        return;
    }
    for (g = 0; g < n; g++) { /* R [G*H, H]: the kept 4-column slices of each row */
        const float *row = r + (col0 + g) * H;
        float s = 0.0f;
        for (j = 0; j < n_groups; j++) {
            int64_t end = (j + 1) * GROUP < H ? (j + 1) * GROUP : H;
            if (!is_kept(kept, cached, h, H, j, th))
                continue;
            for (k = j * GROUP; k < end; k++)
                s += h[k] * row[k];
        }
        gates[g] += s;
    }
}

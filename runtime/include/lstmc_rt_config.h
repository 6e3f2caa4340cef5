/*
 * lstmc_rt_config.h — compile-time limits of the lstmc runtime.
 * A firmware build may override them with -D before including lstmc_rt.h.
 */
#ifndef LSTMC_RT_CONFIG_H
#define LSTMC_RT_CONFIG_H

/* Largest tensor rank any kernel handles. */
#ifndef LSTMC_RT_MAX_RANK
#define LSTMC_RT_MAX_RANK 8
#endif

/* Dims of one strided copy: two per axis of a rank-LSTMC_RT_MAX_RANK tensor, as a Tile
 * that repeats every axis reads it (the repeat with stride 0, then the axis). */
#define LSTMC_RT_STRIDED_MAX_DIMS (2 * LSTMC_RT_MAX_RANK)

/* Alignment in bytes of the caller's arena and of every buffer the memory plan places in it. */
#ifndef LSTMC_RT_ALIGN
#define LSTMC_RT_ALIGN 64
#endif

/* Columns of the packed input weights W^T that lstmc_rt_rnn_proj applies to every row of X
 * before moving on (cache blocking: each panel of G1 is read from memory once, as the Arm
 * paper's model assumes). */
#ifndef LSTMC_RT_PROJ_PANEL
#define LSTMC_RT_PROJ_PANEL 64
#endif

/* Most threads of the worker pool (rt_pool.c, built with LSTMC_RT_THREADS): static storage. */
#ifndef LSTMC_RT_MAX_THREADS
#define LSTMC_RT_MAX_THREADS 16
#endif

#endif /* LSTMC_RT_CONFIG_H */

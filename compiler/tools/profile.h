/*
 * profile.h — `lstmc profile` (issue 7): measure a device (OpenCL or the host CPU) with the
 * tissue GEMM sweep of MICRO'18 Fig. 9, find the MTS per hidden size, measure off-chip and
 * on-chip bandwidth, and write a target profile (docs/TARGETS.md) plus a table and an SVG.
 */
#ifndef LSTMC_PROFILE_H
#define LSTMC_PROFILE_H

/* argv[0] is "profile". Returns the process exit code (0, 1 failure, 2 usage). */
int profile_main(int argc, char **argv);

#endif /* LSTMC_PROFILE_H */

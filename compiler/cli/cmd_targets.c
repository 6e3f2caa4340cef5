/*
 * cmd_targets.c — `lstmc targets`: the built-in target profiles, and the E-LSTM
 * co-processor.
 */
#include "cli_impl.h"

#include <stdio.h>

#include "elstm.h"
#include "target.h"

int
cmd_targets(cli *c)
{
    int i;
    (void)c;
    for (i = 0; target_builtin[i].name; i++)
        printf("%-10s %s\n", target_builtin[i].name, target_builtin[i].summary);
    /* not a CPU/GPU profile: codegen/elstm/elstm.c, docs/ELSTM.md */
    printf("%-10s %s\n", elstm_default_profile.name,
           "E-LSTM co-processor on a RISC-V RoCC port: eSELL word streams + schedule");
    return 0;
}

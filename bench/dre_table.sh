#!/bin/sh
# dre_table.sh — DRE (Arm'19 Eq. 1) of schedule A vs A+ from `lstmc analyze` on the
# MICRO'18 Table II configurations (HxLxT, input size = hidden size, batch 1), for a 12 MiB
# LRU last-level cache (Arm'19 §V's mobile SoC) and for the host's LLC.
#
#   bench/dre_table.sh LSTMC MKMODEL WORKDIR
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 LSTMC MKMODEL WORKDIR" >&2
    exit 2
fi
lstmc=$1
mkmodel=$2
work=$3
mkdir -p "$work"
printf '%-6s %-11s %-10s %11s %12s %8s %12s %8s %7s\n' name "HxLxT" LLC "working set" \
    "A traffic" "A DRE" "A+ traffic" "A+ DRE" "A/A+"
for cfg in IMDB:512:3:80 MR:256:1:22 BABI:256:3:86 SNLI:300:2:100 PTB:650:3:200 MT:500:4:50; do
    IFS=: read -r name H L T <<EOF2
$cfg
EOF2
    model="$work/$name.onnx"
    [ -f "$model" ] || "$mkmodel" --hidden "$H" --input "$H" --layers "$L" --seq "$T" -o "$model"
    for llc in 12MiB host; do
        if [ "$llc" = host ]; then opt=""; else opt="--llc=$llc"; fi
        # shellcheck disable=SC2086
        "$lstmc" analyze "$model" --target=host $opt --csv | awk -F, -v n="$name" \
            -v c="${H}x${L}x${T}" -v l="$llc" '
            $1 == "model" && $4 == "A" { ws = $6; ta = $9; da = $10 }
            $1 == "model" && $4 == "A+" { tb = $9; db = $10 }
            END { printf "%-6s %-11s %-10s %8.2f MiB %8.1f MiB %8.2f %8.1f MiB %8.2f %6.2fx\n",
                  n, c, l, ws / 1048576, ta / 1048576, da, tb / 1048576, db, ta / tb }'
    done
done

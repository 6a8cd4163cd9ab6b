#!/usr/bin/env bash
# A/B: asv_bench/compare.py on two nbgrad checkouts, interleaved in one sitting.
#
#   ab.sh [--rounds N] [--bench DIR] [--out DIR] [--python PY] CHECKOUT_A CHECKOUT_B [compare.py args...]
#   e.g. git worktree add --detach ../base <old commit>
#        asv_bench/ab.sh ../base . --no-cold-start
#        asv_bench/ab.sh --rounds 1 ../base . --only small_ops --no-cold-start --no-memory
#
# Runs A, B, A, B, ... (--rounds pairs, default 2). Each run is one compare.py (all its
# workloads unless --only) whose children import nbgrad from that checkout: PYTHONPATH
# points at it, which wins over an editable install of another checkout (checked below
# and by compare.py itself, which names the checkout its children imported and fails if a
# child imported another). The workloads and compare.py always come from --bench (default
# this script's folder), never from the checkouts, so an old checkout is timed on the new
# workloads. Each run's whole output goes to OUT/<n>_<label>.md (n = 1, 2, ... in run
# order; label A_<dir name> or B_<dir name>); OUT/summary.md puts the ratios side by side.
# Files already in OUT move to OUT/old-<time>/ first.
set -u
ROUNDS=2
BENCH=$(cd "$(dirname "$0")" && pwd)
OUT=ab_out
PY=${PYTHON:-python}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --bench) BENCH=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then sed -n 2,16p "$0" >&2; exit 2; fi
A=$(cd "$1" && pwd) || exit 2
B=$(cd "$2" && pwd) || exit 2
shift 2
[ -f "$BENCH/compare.py" ] || { echo "no compare.py in $BENCH" >&2; exit 2; }
LA="A_$(basename "$A")"
LB="B_$(basename "$B")"

for pair in "$A" "$B"; do
  got=$(cd / && PYTHONPATH="$pair${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c 'import nbgrad; print(nbgrad.__file__)')
  case "$got" in
    "$pair"/nbgrad/*) echo "$pair: nbgrad imports from $got" ;;
    *) echo "$pair: nbgrad imports from $got, not from this checkout" >&2; exit 1 ;;
  esac
done

mkdir -p "$OUT"
if ls "$OUT"/*.md >/dev/null 2>&1; then
  old="$OUT/old-$(date +%Y%m%dT%H%M%S)"
  mkdir -p "$old" && mv "$OUT"/*.md "$old"/ && echo "moved earlier results to $old"
fi

n=0
status=0
for ((r = 1; r <= ROUNDS; r++)); do
  for side in A B; do
    if [ $side = A ]; then dir=$A; label=$LA; else dir=$B; label=$LB; fi
    n=$((n + 1))
    f="$OUT/${n}_${label}.md"
    echo "run $n: $label ($dir) -> $f"
    (cd / && PYTHONPATH="$dir${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$BENCH/compare.py" "$@") >"$f" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      echo "  compare.py exited $rc (see $f)"; status=1
    fi
  done
done

"$PY" - "$OUT" <<'PYEOF' | tee "$OUT/summary.md"
import glob, os, re, sys
out = sys.argv[1]
runs = sorted(glob.glob(os.path.join(out, "[0-9]*_*.md")),
              key=lambda p: int(os.path.basename(p).split("_")[0]))
table, names = {}, []
for p in runs:
    run = os.path.basename(p)[:-3]
    in_main = False
    for line in open(p):
        if line.startswith("| workload | nbgrad |"):  # compare.py's main table
            head = [c.strip() for c in line.strip().strip("|").split("|")]
            at = {h: i for i, h in enumerate(head)}
            ratio = next(i for h, i in at.items() if h.startswith("nbgrad / PyTorch"))
            in_main = True
            continue
        if in_main and not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if in_main and len(cells) == len(head) and not cells[0].startswith("---"):
            if cells[0] not in names:
                names.append(cells[0])
            table.setdefault(cells[0], {})[run] = (
                f"{cells[ratio].split(' (')[0]} "
                f"({cells[at['nbgrad']]} / {cells[at['PyTorch']]})")
cols = [os.path.basename(p)[:-3] for p in runs]
print("ratio nbgrad / PyTorch (nbgrad / PyTorch medians), by run in run order\n")
print("| workload | " + " | ".join(cols) + " |")
print("|---|" + "---|" * len(cols))
for n in names:
    print(f"| {n} | " + " | ".join(table[n].get(c, "-") for c in cols) + " |")
PYEOF
exit $status

#!/bin/sh
# tests/vm/t_vm.sh - the NUMA guest tests (tests/vm/run.sh, beside it) as part of `make check`.
# Skips (77) when the host cannot boot the guests; MEMPHIS_VM=0 skips them on purpose.
src=${MEMPHIS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
exec sh "$src/tests/vm/run.sh" "${MEMPHIS_BUILD:-$src/build}"

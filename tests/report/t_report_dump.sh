#!/bin/sh
# memphis-report dump of a generated run directory: metadata, one line per sample with its
# flags in words, page home node and region, and the --meta / --samples selections.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
N=12345

"$GEN" run -n $N >/dev/null
"$R" dump run > all.txt; rc=$?
check "dump exits 0 (got $rc)" [ "$rc" = 0 ]
lines=$(grep -vc '^#' all.txt)
check "one line per sample ($lines of $N)" [ "$lines" = $N ]
check "metadata: RUN keys" has all.txt "#   backend=soft"
check "metadata: topology with cpu -> node" has all.txt "#   cpu node: 0:0 1:0 2:1 3:1"
check "metadata: threads" grep -q "^#   .* s thread 2 tid 4002 start" all.txt
check "metadata: regions with loss counts" grep -q '^#   region 1 "solve" .* 7 lost' all.txt
check "metadata: allocation, free and first-touch counts" has all.txt "# allocs: 1,003, frees: 1, first touches: 3,072"
check "samples: flags as words" grep -q " exact,load \| exact,store " all.txt
check "samples: nonmem and noaddr samples are there" sh -c 'grep -q " nonmem - " all.txt && grep -q " noaddr,load - " all.txt'
check "samples: TLS flag in words" grep -q "exact,load,tls\|exact,store,tls" all.txt
check "samples: region names" sh -c 'grep -q " solve$" all.txt && grep -q " other$" all.txt'
# samples of colidx (node 0 pages) show node 0; those of the unknown range (node 1) show 1
check "samples: page home node column" sh -c "grep -q ' 0x30000000[0-9a-f]* exact,[a-z]* 1 ' all.txt"
check "samples: times are seconds since the start" sh -c "grep -v '^#' all.txt | head -n 1 | grep -q '^0\.00[0-9]* '"

"$R" dump --meta run > meta.txt
check "--meta: metadata only" sh -c '[ "$(grep -vc "^#" meta.txt)" = 0 ] && grep -q "# run:" meta.txt'
"$R" dump --samples run > samples.txt
lines=$(grep -vc '^#' samples.txt)
check_if "--samples: samples only ($lines)" '[ "$lines" = $N ] && ! grep -q "# run:" samples.txt'
"$R" dump run --meta > meta2.txt
check "options may follow RUNDIR" cmp -s meta.txt meta2.txt
"$R" dump --help > help.txt; rc=$?
check "dump --help exits 0" [ "$rc" = 0 ]
check "dump --help describes the columns" has help.txt "time_s cpu tid ip sampled_ip addr flags page_node region"
done_testing

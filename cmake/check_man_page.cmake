# The man page test (cmake -P, PAGE): every command has its section, with
# its options.
file(READ ${PAGE} page)
foreach(needle ".SS \"leasesim run\"" ".SS \"leasesim merge\"" ".SS \"leasesim compare\"" ".SS \"leasesim replay\"" ".SS \"leasesim check\""
               ".SS \"leasesim fuzz\"" ".SS \"leasesim explore\"" ".SS \"leasesim zoo\"" ".SS \"leasesim designs\"" ".SS \"leasesim live\"" ".SS \"leasesim timing\""
               "--time-budget" "--initial-value" "--fail-fast" "--protocol" "--variant" "--baseline-protocol" "--baseline-variant" "--tolerate" "LEASESIM_SHARD" ".SH COMMANDS")
  string(FIND "${page}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${PAGE} lacks ${needle}")
  endif()
endforeach()

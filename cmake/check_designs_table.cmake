# The short designs table (ctest designs.short_table): runs
# `leasesim designs` and checks its designs.json: every registered design's
# rows present (each design in both token modes where it has two), leasesim's
# own protocol without a violation, and every design without a token caught
# within the budget.
# Usage: cmake -DLEASESIM=... -DOUT=DIR -DRUNS=N -P check_designs_table.cmake
execute_process(COMMAND ${LEASESIM} designs --runs ${RUNS} --seed 1 --no-shrink --quiet --jobs 2 --out ${OUT}
                RESULT_VARIABLE code OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "leasesim designs exited ${code}")
endif()
file(READ ${OUT}/designs.json table)
string(JSON rows LENGTH "${table}" rows)
if(rows LESS 2)
  message(FATAL_ERROR "designs.json has ${rows} row(s): leasesim and at least one design expected")
endif()
set(seen_leasesim FALSE)
math(EXPR last "${rows} - 1")
foreach(index RANGE ${last})
  string(JSON protocol GET "${table}" rows ${index} protocol)
  string(JSON token GET "${table}" rows ${index} token)
  string(JSON cases GET "${table}" rows ${index} cases)
  string(JSON first GET "${table}" rows ${index} first_violation)
  if(NOT cases EQUAL RUNS)
    message(FATAL_ERROR "${protocol}: ${cases} case(s) run, ${RUNS} expected")
  endif()
  if(protocol STREQUAL "leasesim")
    set(seen_leasesim TRUE)
    if(NOT first EQUAL 0)
      message(FATAL_ERROR "leasesim's own protocol violated a property at case ${first}")
    endif()
  elseif(NOT token AND first EQUAL 0)
    message(FATAL_ERROR "${protocol} (no token) was not caught within ${RUNS} cases")
  endif()
endforeach()
if(NOT seen_leasesim)
  message(FATAL_ERROR "designs.json has no leasesim row")
endif()

# histories.knossos_verdicts (cmake -P): `leasesim check` gives every one of
# Knossos's published cas-register histories the verdict Knossos gives it.
#
# -DLEASESIM=<binary> -DTABLE=<verdicts.tsv> -DDATA=<dir holding cas-register/>
# The table lists file (relative to DATA), ops (client invocations, counted
# apart from leasesim) and Knossos's verdict: Knossos's own tests
# (test/knossos/core_test.clj, test-examples) require every file under
# data/cas-register/good to be valid and every one under bad to be invalid,
# with the model (cas-register 0), so each runs as cas-register from 0.
#
# The histories themselves are not in this repository (see README.md beside
# this file); without them the test prints SKIPPED and ctest counts it so.
cmake_minimum_required(VERSION 3.22)
if(DEFINED ENV{LEASESIM_KNOSSOS_DATA})
  set(DATA "$ENV{LEASESIM_KNOSSOS_DATA}")
endif()
if(NOT IS_DIRECTORY "${DATA}/cas-register")
  message("SKIPPED: no Knossos histories at ${DATA}/cas-register (set LEASESIM_KNOSSOS_DATA to knossos's data/ folder)")
  return()
endif()

file(STRINGS "${TABLE}" rows)
list(POP_FRONT rows header)
if(NOT header STREQUAL "file\tops\tknossos")
  message(FATAL_ERROR "${TABLE}: header is '${header}', expected file<TAB>ops<TAB>knossos")
endif()

set(listed "")
set(failures "")
set(agree 0)
foreach(row IN LISTS rows)
  string(REPLACE "\t" ";" fields "${row}")
  list(GET fields 0 file)
  list(GET fields 1 ops)
  list(GET fields 2 knossos)
  list(APPEND listed "${file}")
  if(knossos STREQUAL "valid")
    set(want_code 0)
    set(want_verdict "ok")
  else()
    set(want_code 1)
    set(want_verdict "violation")
  endif()
  execute_process(COMMAND "${LEASESIM}" check "${DATA}/${file}" --format edn --model cas-register --initial-value 0 --json
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JSON verdict ERROR_VARIABLE json_error GET "${out}" verdict)
  string(JSON client_ops ERROR_VARIABLE json_error GET "${out}" client_operations)
  if(NOT code EQUAL want_code OR NOT verdict STREQUAL want_verdict OR NOT client_ops EQUAL ops)
    string(APPEND failures "  ${file}: Knossos says ${knossos} (${ops} ops); leasesim exit ${code}, "
                           "verdict '${verdict}', ${client_ops} client operations ${err}\n")
  else()
    math(EXPR agree "${agree} + 1")
  endif()
endforeach()

# Every history in the folder is in the table, so none goes unchecked.
file(GLOB_RECURSE present RELATIVE "${DATA}" "${DATA}/cas-register/*.edn")
foreach(file IN LISTS present)
  if(NOT file IN_LIST listed)
    string(APPEND failures "  ${file}: in ${DATA} but not in ${TABLE}\n")
  endif()
endforeach()

list(LENGTH rows total)
message("${agree} of ${total} Knossos histories get Knossos's verdict")
if(NOT failures STREQUAL "")
  message(FATAL_ERROR "leasesim check disagrees with Knossos:\n${failures}")
endif()

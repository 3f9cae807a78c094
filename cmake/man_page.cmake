# Builds leasesim.1 with help2man from `leasesim --help`, `--version` and,
# as a COMMANDS section, every command's own --help (cmake -P). Inputs:
# LEASESIM, HELP2MAN, OUTPUT, WORK.
execute_process(COMMAND ${LEASESIM} --help OUTPUT_VARIABLE top RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "leasesim --help failed")
endif()
# The command names: the lines of the Commands section ("  run   Run ...").
string(REGEX MATCH "Commands:\n(.*)" section "${top}")
string(REGEX MATCHALL "\n  ([a-z]+) " lines "\n${CMAKE_MATCH_1}")
set(include "[COMMANDS]\n")
foreach(line IN LISTS lines)
  string(STRIP "${line}" name)
  execute_process(COMMAND ${LEASESIM} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "leasesim ${name} --help failed")
  endif()
  # Roff: backslashes escaped; every line starts with \& (nothing), so a
  # leading dot or quote is text, not a request.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REPLACE "\n" "\n\\&" help "\\&${help}")
  string(APPEND include ".SS \"leasesim ${name}\"\n.nf\n${help}\n.fi\n")
endforeach()
file(WRITE ${WORK}/leasesim-man-include.h2m "${include}")
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr --name "lease-based leader election simulator"
                        --section 1 --include ${WORK}/leasesim-man-include.h2m --output ${OUTPUT} ${LEASESIM}
                RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "help2man failed")
endif()

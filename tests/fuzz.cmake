cmake_minimum_required(VERSION 3.16)
# Builds one libFuzzer target with clang (-fsanitize=fuzzer,address,undefined) and runs it for
# SECONDS seconds from the committed corpus (read only; new inputs go to a scratch directory).
# tests/CMakeLists.txt adds the test only where clang can link libFuzzer. A crash, a sanitizer report or a failed
# invariant (__builtin_trap) fails the test; the input that did it is kept in WORK.
#   cmake -DCLANG=... -DNAME=npy -DSOURCES=a.c|b.c -DINCLUDES=dir|dir -DLIBS=lib|flag \
#         -DCORPUS=dir -DWORK=dir -DSECONDS=30 -P fuzz.cmake
foreach(list SOURCES INCLUDES LIBS) # '|'-separated: ';' would not survive add_test
  string(REPLACE "|" ";" ${list} "${${list}}")
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus")
set(binary "${WORK}/fuzz_${NAME}")
set(flags -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags "-I${dir}")
endforeach()
execute_process(COMMAND "${CLANG}" ${flags} ${SOURCES} ${LIBS} -o "${binary}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building fuzz_${NAME} failed:\n${err}")
endif()
execute_process(COMMAND "${binary}" -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=1024
                        "-artifact_prefix=${WORK}/" "${WORK}/corpus" "${CORPUS}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz_${NAME} failed (exit ${rc}); inputs kept in ${WORK}\n${err}")
endif()
string(REGEX MATCH "Done [0-9]+ runs" runs "${err}")
message(STATUS "fuzz_${NAME}: ${runs} in ${SECONDS} s, no failure")

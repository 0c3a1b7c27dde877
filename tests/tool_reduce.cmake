cmake_minimum_required(VERSION 3.16)
# clcompute reduce on .npy and raw files: every result as numpy computes it (data/npy/expected.txt,
# made by numpy; see data/README.md), every numeric dtype, Fortran order (argmin/argmax return the
# C-order index of the first extreme, ties included), and clear refusals for files it must not
# read.
set(dir "${DATA}/npy")
file(STRINGS "${dir}/expected.txt" cases)
set(n 0)
foreach(line IN LISTS cases)
  string(REPLACE " " ";" parts "${line}")
  list(GET parts 0 name)
  list(GET parts 1 op)
  list(GET parts 2 want)
  set(extra "")
  if(name MATCHES "\\.raw$")
    set(extra --type f32)
  endif()
  execute_process(COMMAND "${TOOL}" reduce "${dir}/${name}" --op ${op} ${extra}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL want)
    message(FATAL_ERROR "reduce ${name} --op ${op}: exit ${rc}, printed '${out}', numpy says "
                        "'${want}' ${err}")
  endif()
  math(EXPR n "${n} + 1")
endforeach()

function(refused file expect)
  execute_process(COMMAND "${TOOL}" reduce "${file}" ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "${expect}" OR NOT out STREQUAL "")
    message(FATAL_ERROR "reduce ${file} ${ARGN}: exit ${rc}, stdout '${out}', message '${err}', "
                        "wanted '${expect}'")
  endif()
endfunction()
file(WRITE "$ENV{CLC_TEST_TMPDIR}/zero_bytes.npy" "")
refused("$ENV{CLC_TEST_TMPDIR}/zero_bytes.npy" "is empty \\(0 bytes\\), not a .npy file" --op sum)
file(REMOVE "$ENV{CLC_TEST_TMPDIR}/zero_bytes.npy")
refused("${dir}/bigendian.npy" "big-endian" --op sum)
refused("${dir}/complex.npy" "unsupported dtype" --op sum)
refused("${dir}/empty.npy" "is empty: a zero-size array has no argmax" --op argmax)
refused("${dir}/empty.npy" "is empty: a zero-size array has no min" --op min)
# numpy's identities for an empty float32 array: the sum is 0.0, the mean NaN (with a warning).
foreach(case "sum;0.0" "mean;nan")
  list(GET case 0 op)
  list(GET case 1 want)
  execute_process(COMMAND "${TOOL}" reduce "${dir}/empty.npy" --op ${op} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL want)
    message(FATAL_ERROR "empty --op ${op}: exit ${rc}, '${out}', numpy says '${want}'")
  endif()
endforeach()
refused("${dir}/truncated.npy" "holds .* bytes of data" --op sum)
refused("${dir}/not_npy.npy" "not a .npy file" --op sum)
refused("${dir}/not_npy.npy" "not a whole number" --op sum --type f64)
refused("${dir}" "not a regular file" --op sum)
refused("${dir}/missing.npy" "No such file" --op sum)
refused("${dir}/f32_v2.npy" "unknown operation" --op median)
# An option that contradicts the input, or makes no sense for it, is refused: a .npy file says its
# own type (this once read the header as data and printed a wrong sum with exit 0).
refused("${dir}/i32_10.npy" "is a .npy file of int32; --type f32 contradicts it" --op sum
        --type f32)
refused("${dir}/f32_30.raw" "not a .npy file .*give --type" --op sum)
refused("${dir}/f32_30.raw" "unknown type 'f128'" --op sum --type f128)
refused("${dir}/f32_30.raw" "option --op needs a value" --op)
refused("${dir}/f32_30.raw" "unexpected argument 'second'" --op sum second)
# The same type named by the option and the file is fine; so are numpy's names.
execute_process(COMMAND "${TOOL}" reduce "${dir}/i32_10.npy" --op=sum --type=int32
                RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "10737418242")
  message(FATAL_ERROR "--op=sum --type=int32 on an int32 file: exit ${rc}, '${out}'")
endif()
execute_process(COMMAND "${TOOL}" reduce "${dir}/f32_30.raw" --op argmin --type float32
                RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "24")
  message(FATAL_ERROR "--type float32 on raw data: exit ${rc}, '${out}'")
endif()
# Names in any case, as gray's --weights.
execute_process(COMMAND "${TOOL}" reduce "${dir}/f32_30.raw" --op ArgMin --type F32
                RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "24")
  message(FATAL_ERROR "--op ArgMin --type F32: exit ${rc}, '${out}'")
endif()
# numpy's type codes and its half/single/double name the same types; 'float' and 'int', 64-bit in
# numpy and 32-bit in C, are refused as ambiguous, and big-endian codes as unsupported.
foreach(t "f4" "<f4" "=f4" "single" "SINGLE")
  execute_process(COMMAND "${TOOL}" reduce "${dir}/f32_30.raw" --op argmin --type ${t}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "24")
    message(FATAL_ERROR "--type ${t} on raw float32 data: exit ${rc}, '${out}'")
  endif()
endforeach()
execute_process(COMMAND "${TOOL}" reduce "${dir}/i32_10.npy" --op sum --type <i4
                RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "10737418242")
  message(FATAL_ERROR "--type <i4 on an int32 file: exit ${rc}, '${out}'")
endif()
refused("${dir}/f32_30.raw" "type 'float' is ambiguous .*float32 or float64" --op sum --type float)
refused("${dir}/f32_30.raw" "type 'int' is ambiguous .*int32 or int64" --op sum --type int)
refused("${dir}/f32_30.raw" "type 'i8' is ambiguous .*say int8 or int64" --op sum --type i8)
refused("${dir}/f32_30.raw" "type 'u8' is ambiguous .*say uint8 or uint64" --op sum --type u8)
refused("${dir}/f32_30.raw" "big-endian" --op sum --type >f4)
# The library never prints: a first build, with neither our program cache nor PoCL's, leaves
# stderr empty. PoCL's compiler wrote "9 warnings generated." there until builds took -w.
set(fresh "$ENV{CLC_TEST_TMPDIR}/tool_reduce_fresh_caches")
file(REMOVE_RECURSE "${fresh}")
file(MAKE_DIRECTORY "${fresh}/ours" "${fresh}/pocl")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "CLCOMPUTE_CACHE_DIR=${fresh}/ours"
                        "POCL_CACHE_DIR=${fresh}/pocl" "${TOOL}" reduce "${dir}/f32_2x3x5.npy"
                        --op argmax RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${fresh}")
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "reduce with empty caches: exit ${rc}, stderr '${err}' (want nothing)")
endif()
message(STATUS "tool reduce: ${n} results as numpy's; refusals clear; a first build is silent")

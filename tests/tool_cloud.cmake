cmake_minimum_required(VERSION 3.16)
# clcompute cloud end to end: binary and ASCII PLY with colour; every refusal leaves no file.
set(out "${WORK}/tool_cloud")
file(REMOVE_RECURSE "${out}")
file(MAKE_DIRECTORY "${out}")
set(K --fx 30 --fy 31 --cx 18 --cy 11)

function(ok name)
  execute_process(COMMAND "${TOOL}" cloud ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: exit ${rc}: ${err}")
  endif()
  set(stdout "${o}" PARENT_SCOPE)
endfunction()

ok(binary "${DATA}/depth16.png" "${out}/a.ply" ${K} --depth-trunc 3 --color "${DATA}/rgb.png")
file(READ "${out}/a.ply" head LIMIT 400)
if(NOT head MATCHES "format binary_little_endian 1.0" OR NOT head MATCHES "property uchar red"
   OR NOT head MATCHES "property float z")
  message(FATAL_ERROR "binary header: ${head}")
endif()
string(REGEX MATCH "element vertex ([0-9]+)" _ "${head}")
set(n ${CMAKE_MATCH_1})
if(n LESS 1 OR n GREATER 851)
  message(FATAL_ERROR "vertex count ${n} outside 1..851")
endif()
# Header plus 15 bytes a point, exactly.
string(FIND "${head}" "end_header\n" at)
math(EXPR expected "${at} + 11 + ${n} * 15")
file(SIZE "${out}/a.ply" size)
if(NOT size EQUAL expected)
  message(FATAL_ERROR "binary PLY is ${size} bytes, expected ${expected}")
endif()

ok(ascii "${DATA}/depth16.png" "${out}/b.ply" ${K} --depth-trunc 3 --ascii --stride 2)
file(STRINGS "${out}/b.ply" lines)
list(LENGTH lines nlines)
if(NOT lines MATCHES "format ascii 1.0")
  message(FATAL_ERROR "ascii header missing")
endif()
ok(organized "${DATA}/depth16.png" "${out}/c.ply" ${K} --organized)
file(READ "${out}/c.ply" head LIMIT 200)
if(NOT head MATCHES "element vertex 851\n")
  message(FATAL_ERROR "organized 37x23 cloud must have 851 points: ${head}")
endif()
ok(eightbit "${DATA}/gray.png" "${out}/d.ply" ${K} --allow-8bit)

function(refused expect)
  execute_process(COMMAND "${TOOL}" cloud ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err
                  OUTPUT_QUIET)
  if(rc EQUAL 0 OR NOT err MATCHES "${expect}")
    message(FATAL_ERROR "cloud ${ARGN}: exit ${rc}, message '${err}', wanted '${expect}'")
  endif()
  file(GLOB left "${out}/refused.ply*")
  if(left)
    message(FATAL_ERROR "cloud ${ARGN} left ${left}")
  endif()
endfunction()

refused("colour image .*color_10x10.png. is 10 x 10 but depth is 37 x 23" "${DATA}/depth16.png" "${out}/refused.ply" ${K} --color "${DATA}/color_10x10.png")
refused("8-bit" "${DATA}/gray.png" "${out}/refused.ply" ${K})
refused("channels" "${DATA}/rgb.png" "${out}/refused.ply" ${K})
refused("--fy .or --intrinsics FILE. is required" "${DATA}/depth16.png" "${out}/refused.ply" --fx 1 --cx 1 --cy 1)
# Every numeric option: zero, negative, NaN, infinity and trailing garbage are refused by name
# (zero is not "the default": --depth-scale 0 once meant 1000 silently).
foreach(bad 0 -5 nan inf -inf 5x 1e999 0x)
  refused("option --depth-scale needs a positive number, not '${bad}'" "${DATA}/depth16.png"
          "${out}/refused.ply" ${K} --depth-scale "${bad}")
  refused("option --depth-trunc needs a positive number" "${DATA}/depth16.png"
          "${out}/refused.ply" ${K} --depth-trunc=${bad})
endforeach()
refused("option --fx needs a positive number, not '0'" "${DATA}/depth16.png" "${out}/refused.ply"
        --fx 0 --fy 1 --cx 1 --cy 1)
refused("option --fy needs a positive number, not '-3'" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy -3 --cx 1 --cy 1)
refused("option --cx needs a finite, non-negative number, not '-1'" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy 1 --cx -1 --cy 1)
refused("option --cy needs a finite, non-negative number, not 'nan'" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy 1 --cx 1 --cy nan)
refused("option --stride needs a whole number from 1 to 65535, not '0'" "${DATA}/depth16.png"
        "${out}/refused.ply" ${K} --stride 0)
refused("option --stride needs a whole number from 1 to 65535, not '2.5'" "${DATA}/depth16.png"
        "${out}/refused.ply" ${K} --stride 2.5)
refused("option --stride needs a value" "${DATA}/depth16.png" "${out}/refused.ply" ${K} --stride)
refused("option --fx needs a value" "${DATA}/depth16.png" "${out}/refused.ply" --fx --fy 1)
refused("--fx and --intrinsics both" "${DATA}/depth16.png" "${out}/refused.ply" ${K}
        --intrinsics "${DATA}/README.md")
refused("cannot read intrinsics '.*missing.json': No such file" "${DATA}/depth16.png"
        "${out}/refused.ply" --intrinsics "${DATA}/missing.json")
# The output's name says the format: PLY only, refused before the depth image is read.
refused("cannot write '.*refused.ply.txt': point clouds are written as PLY" "${DATA}/missing.png"
        "${out}/refused.ply.txt" ${K})
refused("truncated or corrupt PNG" "${DATA}/depth16_truncated.png" "${out}/refused.ply" ${K})
refused("directory" "${DATA}" "${out}/refused.ply" ${K})
refused("cannot create" "${DATA}/depth16.png" "${out}/no/dir/refused.ply" ${K})
message(STATUS "tool cloud: ${n} points; all refusals clean")

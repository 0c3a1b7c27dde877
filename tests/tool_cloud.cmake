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
# A 16-bit colour image colours the points as imread reads it (each sample's high byte; gray
# made RGB, alpha dropped): the cloud equals the one coloured by imread's own 8-bit result,
# NAME.color8.png (OpenCV 5.1).
foreach(name depth16 gray_alpha16 rgb16 rgba16 rgb10_ppm)
  string(REGEX REPLACE "_ppm$" ".ppm" file "${name}")
  if(file STREQUAL name)
    set(file "${name}.png")
  endif()
  ok(color16_${name} "${DATA}/depth16.png" "${out}/c16.ply" ${K} --color "${DATA}/${file}")
  ok(color8_${name} "${DATA}/depth16.png" "${out}/c8.ply" ${K} --color "${DATA}/${name}.color8.png")
  file(SHA256 "${out}/c16.ply" got)
  file(SHA256 "${out}/c8.ply" want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "--color ${file}: the cloud differs from the one coloured by imread's")
  endif()
endforeach()
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

# Depth from .npy as numpy users save it: uint16 (C or Fortran order) gives the PNG's cloud byte
# for byte; float32 metres gives as many points.
ok(npy_u16 "${DATA}/depth16.npy" "${out}/npy.ply" ${K} --depth-trunc 3 --color "${DATA}/rgb.png")
ok(npy_fortran "${DATA}/depth16_fortran.npy" "${out}/npy_f.ply" ${K} --depth-trunc 3
   --color "${DATA}/rgb.png")
foreach(f npy.ply npy_f.ply)
  file(SHA256 "${out}/a.ply" want)
  file(SHA256 "${out}/${f}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${f} differs from the PNG's cloud")
  endif()
endforeach()
ok(npy_f32 "${DATA}/depth_m.npy" "${out}/m.ply" ${K} --depth-trunc 3)
file(READ "${out}/m.ply" mhead LIMIT 200)
if(NOT mhead MATCHES "element vertex ${n}
")
  message(FATAL_ERROR "float32 metres gave another point count than ${n}: ${mhead}")
endif()

# PCD (PCL's format): binary and ASCII, colour packed as PCL packs it, organized clouds keep
# their grid. Binary: header, then 16 bytes a point with colour.
ok(pcd "${DATA}/depth16.png" "${out}/a.pcd" ${K} --depth-trunc 3 --color "${DATA}/rgb.png")
file(READ "${out}/a.pcd" pcd LIMIT 400)
foreach(line "VERSION 0.7" "FIELDS x y z rgb" "SIZE 4 4 4 4" "TYPE F F F F" "COUNT 1 1 1 1"
             "WIDTH ${n}" "HEIGHT 1" "POINTS ${n}" "DATA binary")
  if(NOT pcd MATCHES "\n${line}\n")
    message(FATAL_ERROR "PCD header lacks '${line}': ${pcd}")
  endif()
endforeach()
string(FIND "${pcd}" "DATA binary\n" at)
math(EXPR expect_size "${at} + 12 + ${n} * 16")
file(SIZE "${out}/a.pcd" size)
if(NOT size EQUAL expect_size)
  message(FATAL_ERROR "binary PCD is ${size} bytes, expected ${expect_size}")
endif()
ok(pcd_ascii "${DATA}/depth16.png" "${out}/b.pcd" ${K} --organized --ascii --stride 2
   --depth-trunc 3)
file(STRINGS "${out}/b.pcd" lines)
list(LENGTH lines nlines)
if(NOT lines MATCHES "WIDTH 19;HEIGHT 12;" OR NOT lines MATCHES "POINTS 228;DATA ascii")
  message(FATAL_ERROR "organized ASCII PCD header: ${lines}")
endif()
if(NOT nlines EQUAL 239) # 11 header lines (one comment) and 228 points
  message(FATAL_ERROR "organized ASCII PCD has ${nlines} lines")
endif()
if(NOT lines MATCHES ";nan nan nan;")
  message(FATAL_ERROR "organized ASCII PCD has no NaN point for an invalid pixel")
endif()

# 16-bit PGM is big-endian, as the format says: bytes 00 01 are depth 1.
file(WRITE "${out}/be.pgm" "P5\n2 1\n65535\n")
execute_process(COMMAND sh -c "printf '\\022\\064\\000\\001' >> '${out}/be.pgm'")
ok(pgm16 "${out}/be.pgm" "${out}/be.ply" --fx 1 --fy 1 --cx 0 --cy 0 --ascii --depth-scale 1
   --depth-trunc 10000)
file(STRINGS "${out}/be.ply" be)
if(NOT be MATCHES ";0 0 4660;1 0 1$")
  message(FATAL_ERROR "16-bit PGM read in the wrong byte order: ${be}")
endif()
file(WRITE "${out}/seven.txt" "525 525 18 11 37 23 99\n")

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
refused("one channel" "${DATA}/rgb.png" "${out}/refused.ply" ${K})
refused("--fy .or --intrinsics FILE. is required" "${DATA}/depth16.png" "${out}/refused.ply" --fx 1 --cx 1 --cy 1)
# Every numeric option: zero, negative, NaN, infinity and trailing garbage are refused by name
# (zero is not "the default": --depth-scale 0 once meant 1000 silently).
foreach(bad 0 -5 nan inf -inf 5x 0x)
  refused("option --depth-scale needs a positive, finite number, not '${bad}'" "${DATA}/depth16.png"
          "${out}/refused.ply" ${K} --depth-scale "${bad}")
  if(NOT bad STREQUAL "inf") # no truncation at all, as the API's infinity
    refused("option --depth-trunc needs a positive .or inf. number" "${DATA}/depth16.png"
            "${out}/refused.ply" ${K} --depth-trunc=${bad})
  endif()
endforeach()
# Numbers beyond a double (and, for a focal length, below a float's normal range, whose
# reciprocal overflows) are numbers, refused as out of range; hexadecimal is refused as such.
foreach(bad 1e999 1e-999)
  refused("option --depth-scale: '${bad}' is out of a float's range" "${DATA}/depth16.png"
          "${out}/refused.ply" ${K} --depth-scale "${bad}")
endforeach()
refused("option --depth-scale needs a positive, finite number, not '-1e999'" "${DATA}/depth16.png"
        "${out}/refused.ply" ${K} --depth-scale -1e999)
foreach(bad 1e-40 1e-400 1e999)
  refused("option --fx: '${bad}' is out of a float's range" "${DATA}/depth16.png"
          "${out}/refused.ply" --fx ${bad} --fy 1 --cx 1 --cy 1)
endforeach()
refused("option --fx takes decimal numbers, not '0x10'" "${DATA}/depth16.png" "${out}/refused.ply"
        --fx 0x10 --fy 1 --cx 1 --cy 1)
# A truncation distance beyond a double is no truncation (inf); below one it is zero.
foreach(bad -1e999 1e-999)
  refused("option --depth-trunc needs a positive .or inf. number, not '${bad}'" "${DATA}/depth16.png"
          "${out}/refused.ply" ${K} --depth-trunc=${bad})
endforeach()
ok(trunc_huge "${DATA}/depth16.png" "${out}/huge.ply" ${K} --depth-trunc 1e999)
ok(trunc_inf "${DATA}/depth16.png" "${out}/inf.ply" ${K} --depth-trunc inf)
ok(trunc_1000 "${DATA}/depth16.png" "${out}/t1000.ply" ${K} --depth-trunc 1000)
file(READ "${out}/inf.ply" inf_ply HEX)
file(READ "${out}/t1000.ply" t1000_ply HEX)
if(NOT inf_ply STREQUAL t1000_ply) # 16-bit depth never reaches 1000 m at 1000 units a metre
  message(FATAL_ERROR "--depth-trunc inf and 1000 differ on 16-bit depth")
endif()
refused("option --fx needs a finite, non-zero number, not '0'" "${DATA}/depth16.png" "${out}/refused.ply"
        --fx 0 --fy 1 --cx 1 --cy 1)
refused("option --fy needs a finite, non-zero number, not '-inf'" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy -inf --cx 1 --cy 1)
# A negative focal length mirrors its axis, as in Open3D: the same points with x negated, and
# the same from an intrinsics file.
ok(negative_fx "${DATA}/depth16.png" "${out}/mirror.ply" --fx -30 --fy 31 --cx 18 --cy 11 --ascii)
ok(positive_fx "${DATA}/depth16.png" "${out}/plain.ply" ${K} --ascii)
file(WRITE "${out}/negative_fx.txt" "-30 31 18 11 37 23")
ok(negative_fx_file "${DATA}/depth16.png" "${out}/mirror_file.ply" --intrinsics "${out}/negative_fx.txt"
   --ascii)
file(STRINGS "${out}/mirror.ply" mirror)
file(STRINGS "${out}/plain.ply" plain)
file(STRINGS "${out}/mirror_file.ply" mirror_file)
if(NOT mirror STREQUAL mirror_file)
  message(FATAL_ERROR "--fx -30 and an intrinsics file with fx -30 differ")
endif()
list(LENGTH mirror n_mirror)
list(LENGTH plain n_plain)
list(FIND plain "end_header" body)
if(NOT n_mirror EQUAL n_plain OR body LESS 0 OR n_plain LESS_EQUAL body)
  message(FATAL_ERROR "mirrored cloud: ${n_mirror} lines, plain ${n_plain}")
endif()
math(EXPR last "${n_plain} - 1")
foreach(i RANGE ${body} ${last})
  list(GET plain ${i} p)
  list(GET mirror ${i} m)
  if(i GREATER body)
    # x negated: strip or add the sign of the first field; zero prints as 0 or -0.
    if(p MATCHES "^-")
      string(SUBSTRING "${p}" 1 -1 p)
    else()
      set(p "-${p}")
    endif()
    string(REGEX REPLACE "^-0 " "0 " p "${p}")
    string(REGEX REPLACE "^-0 " "0 " m "${m}")
  endif()
  if(NOT p STREQUAL m)
    message(FATAL_ERROR "line ${i}: mirrored '${m}', plain with x negated '${p}'")
  endif()
endforeach()
# A principal point may lie left of or above the image (a crop), but must be finite.
ok(negative_principal_point "${DATA}/depth16.png" "${out}/crop.ply" --fx 30 --fy 31 --cx -5 --cy -2.5)
refused("option --cx needs a finite number, not 'inf'" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy 1 --cx inf --cy 1)
refused("option --cy needs a finite number, not 'nan'" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy 1 --cx 1 --cy nan)
# Beyond a float (which the library takes), or with a reciprocal beyond one: refused here, not
# by every file of a batch.
refused("option --fx: '1e300' is out of a float's range" "${DATA}/depth16.png" "${out}/refused.ply"
        --fx 1e300 --fy 1 --cx 1 --cy 1)
refused("option --fy: '1e-300' is out of a float's range" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy 1e-300 --cx 1 --cy 1)
refused("option --cx: '-1e300' is out of a float's range" "${DATA}/depth16.png"
        "${out}/refused.ply" --fx 1 --fy 1 --cx -1e300 --cy 1)
refused("option --depth-scale: '1e-39' is out of a float's range" "${DATA}/depth16.png"
        "${out}/refused.ply" ${K} --depth-scale 1e-39)
refused("option --stride needs a whole number from 1 to 65535, not '0'" "${DATA}/depth16.png"
        "${out}/refused.ply" ${K} --stride 0)
refused("option --stride needs a whole number from 1 to 65535, not '2.5'" "${DATA}/depth16.png"
        "${out}/refused.ply" ${K} --stride 2.5)
refused("option --stride needs a value" "${DATA}/depth16.png" "${out}/refused.ply" ${K} --stride)
refused("option --fx needs a value" "${DATA}/depth16.png" "${out}/refused.ply" --fx --fy 1)
refused("--fx and --intrinsics both" "${DATA}/depth16.png" "${out}/refused.ply" ${K}
        --intrinsics "${DATA}/README.md")
refused("neither Open3D intrinsics JSON .* nor the six numbers" "${DATA}/depth16.png"
        "${out}/refused.ply" --intrinsics "${out}/seven.txt")
# Readable intrinsics with a value out of range say which.
file(WRITE "${out}/zero_fy.txt" "30 0 18 11 37 23")
refused("intrinsics '.*zero_fy.txt': fx 30, fy 0, cx 18, cy 11, 37 x 23; the focal lengths must be non-zero and within a float's range"
        "${DATA}/depth16.png" "${out}/refused.ply" --intrinsics "${out}/zero_fy.txt")
# As the options: a focal length below a float's normal range, and hexadecimal, are refused
# before any image is read.
file(WRITE "${out}/tiny_fx.txt" "1e-40 31 18 11 37 23")
refused("intrinsics '.*tiny_fx.txt': fx 1e-40, .*within a float's range" "${DATA}/depth16.png"
        "${out}/refused.ply" --intrinsics "${out}/tiny_fx.txt")
file(WRITE "${out}/hex_fx.txt" "0x10 31 18 11 37 23")
refused("neither Open3D intrinsics JSON .* nor the six numbers" "${DATA}/depth16.png"
        "${out}/refused.ply" --intrinsics "${out}/hex_fx.txt")
refused("cannot read intrinsics '.*missing.json': No such file" "${DATA}/depth16.png"
        "${out}/refused.ply" --intrinsics "${DATA}/missing.json")
# Intrinsics JSON is taken where Python's json and Open3D take it and read it the same way.
# As o3d.io.write_pinhole_camera_intrinsic writes it (jsoncpp: keys sorted, tabs, the list on
# its own lines), and other valid spellings: numbers with exponents, an escaped key, a key Open3D
# does not read, a byte order mark. Each gives the cloud --fx 30 --fy 31 --cx 18 --cy 11 gives.
file(WRITE "${out}/open3d.json" "{\n\t\"height\" : 23,\n\t\"intrinsic_matrix\" : \n\t[\n\t\t30.0,\n\t\t0.0,\n\t\t0.0,\n\t\t0.0,\n\t\t31.0,\n\t\t0.0,\n\t\t18.0,\n\t\t11.0,\n\t\t1.0\n\t],\n\t\"width\" : 37\n}\n")
file(WRITE "${out}/spelt.json" [=[{"intrinsic_matrix": [3e1, 0, 0, -0.0, 3.1E+1, 0, 180e-1, 11, 1.0],
 "w\u0069dth": 37, "comment": {"by": ["hand", 1, true, null]}, "height": 23}]=] "\r\n")
execute_process(COMMAND sh -c "printf '\\357\\273\\277' > '${out}/bom.json'")
file(APPEND "${out}/bom.json" [=[{"width": 37, "height": 23, "intrinsic_matrix": [30, 0, 0, 0, 31, 0, 18, 11, 1]}]=])
# A whole number written as a real (37.0, 2.3e1) is that number, as Python and Open3D read it.
file(WRITE "${out}/real.json" [=[{"width": 37.0, "height": 2.3e1, "intrinsic_matrix": [30, 0, 0, 0, 31, 0, 18, 11, 1]}]=])
file(SHA256 "${out}/plain.ply" want)
foreach(name open3d spelt bom real)
  ok(json_${name} "${DATA}/depth16.png" "${out}/json_${name}.ply" --intrinsics "${out}/${name}.json"
     --ascii)
  file(SHA256 "${out}/json_${name}.ply" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "intrinsics ${name}.json gave another cloud than the flags")
  endif()
endforeach()
# What Python's json refuses or Open3D would read differently is refused, saying what and where:
# junk after the object, a matrix of other than nine numbers, a width that is not a whole number
# of pixels (Open3D truncates 64.7), a key given twice (Python and Open3D keep the last).
set(M "[30.0, 0.0, 0.0, 0.0, 31.0, 0.0, 18.0, 11.0, 1.0]")
# (A function, not a list: the brackets of a JSON list would keep CMake's list from splitting.)
function(bad_json name text expect)
  file(WRITE "${out}/bad_${name}.json" "${text}")
  refused("intrinsics '.*bad_${name}.json'.*${expect}" "${DATA}/depth16.png" "${out}/refused.ply"
          --intrinsics "${out}/bad_${name}.json")
endfunction()
bad_json(trailing "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": ${M}} x"
         "line 1 column 100: 'x' after the closing '}'")
bad_json(second "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": ${M}}\n{}"
         "line 2 column 1: '{' after the closing '}'")
bad_json(ten "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": [30, 0, 0, 0, 31, 0, 18, 11, 1, 5]}"
         "\"intrinsic_matrix\" has 10 numbers. it must have 9")
bad_json(eight "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": [30, 0, 0, 0, 31, 0, 18, 11]}"
         "\"intrinsic_matrix\" has 8 numbers")
bad_json(nested "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": [[30, 0, 0], [0, 31, 0], [18, 11, 1]]}"
         "element 1 of \"intrinsic_matrix\" is not a JSON number")
bad_json(nan "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": [NaN, 0, 0, 0, 31, 0, 18, 11, 1]}"
         "element 1 of \"intrinsic_matrix\" is not a JSON number")
bad_json(fraction "{\"width\": 64.7, \"height\": 23, \"intrinsic_matrix\": ${M}}"
         "\"width\" is 64.7. it must be a whole number of pixels from 1 to 2147483647")
bad_json(exponent_fraction "{\"width\": 37, \"height\": 2.35e1, \"intrinsic_matrix\": ${M}}"
         "\"height\" is 2.35e1. it must be a whole number")
bad_json(zero "{\"width\": 0, \"height\": 23, \"intrinsic_matrix\": ${M}}"
         "\"width\" is 0. it must be")
bad_json(huge "{\"width\": 4294967333, \"height\": 23, \"intrinsic_matrix\": ${M}}"
         "\"width\" is 4294967333. it must be")
bad_json(octal "{\"width\": 037, \"height\": 23, \"intrinsic_matrix\": ${M}}"
         "\"width\" is not a JSON number")
bad_json(string "{\"width\": \"37\", \"height\": 23, \"intrinsic_matrix\": ${M}}"
         "\"width\" is not a JSON number")
bad_json(twice "{\"width\": 64, \"height\": 23, \"intrinsic_matrix\": ${M}, \"width\": 37}"
         "line 1 column 100: the key \"width\" is given twice")
bad_json(twice_escaped "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": ${M}, \"w\\u0069dth\": 37}"
         "the key \"width\" is given twice")
bad_json(twice_other "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": ${M}, \"a\": 1, \"a\": 1}"
         "the key \"a\" is given twice")
bad_json(comma "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": ${M},}"
         "a key .a string. expected, not '}'")
bad_json(quotes "{'width': 37, 'height': 23, 'intrinsic_matrix': ${M}}"
         "a key .a string. expected")
bad_json(unclosed "{\"width\": 37, \"height\": 23, \"intrinsic_matrix\": [30.0, 0.0"
         "',' or ']' expected in \"intrinsic_matrix\", not the end of the file")
bad_json(no_height "{\"width\": 37, \"intrinsic_matrix\": ${M}}"
         "has no \"height\"")
bad_json(parameters "{\"class_name\": \"PinholeCameraParameters\", \"intrinsic\": {\"width\": 37, \"height\": 23, \"intrinsic_matrix\": ${M}}}"
         "has no \"width\".*looks like PinholeCameraParameters")
# The text form: six numbers apart, then only white space (a NUL byte is not the end); a width
# past int was read as another number.
file(WRITE "${out}/minus.txt" "30-31 18 11 37 23")
file(WRITE "${out}/fraction.txt" "30 31 18 11 37.5 23")
execute_process(COMMAND sh -c "printf '30 31 18 11 37 23\\000junk' > '${out}/nul.txt'")
foreach(name minus fraction nul)
  refused("'.*${name}.txt' is neither Open3D intrinsics JSON .* nor the six numbers"
          "${DATA}/depth16.png" "${out}/refused.ply" --intrinsics "${out}/${name}.txt")
endforeach()
file(WRITE "${out}/huge.txt" "30 31 18 11 4294967333 23")
refused("intrinsics '.*huge.txt': .* 4294967333 x 23; .* width and height from 1 to 2147483647"
        "${DATA}/depth16.png" "${out}/refused.ply" --intrinsics "${out}/huge.txt")
file(WRITE "${out}/exponent.txt" "3e1 3.1e1 18 11 37 23\n\n")
ok(text_exponent "${DATA}/depth16.png" "${out}/text_exponent.ply" --intrinsics "${out}/exponent.txt"
   --ascii)
file(SHA256 "${out}/text_exponent.ply" got)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "intrinsics exponent.txt gave another cloud than the flags")
endif()
# The output's name says the format: PLY only, refused before the depth image is read.
refused("cannot write '.*refused.ply.txt': point clouds are written as PLY or PCD" "${DATA}/missing.png"
        "${out}/refused.ply.txt" ${K})
refused("truncated or corrupt PNG" "${DATA}/depth16_truncated.png" "${out}/refused.ply" ${K})
refused("float32 depth in metres; --depth-scale is for 16-bit" "${DATA}/depth_m.npy"
        "${out}/refused.ply" ${K} --depth-scale 1000)
refused("depth image .* is uint16 with 3 dimensions" "${DATA}/depth_rgb.npy" "${out}/refused.ply"
        ${K})
refused("is int32 with 1 dimension;" "${DATA}/npy/i32_10.npy" "${out}/refused.ply" ${K})
refused("directory" "${DATA}" "${out}/refused.ply" ${K})
refused("cannot create" "${DATA}/depth16.png" "${out}/no/dir/refused.ply" ${K})
message(STATUS "tool cloud: ${n} points; all refusals clean")

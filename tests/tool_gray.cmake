cmake_minimum_required(VERSION 3.16)
# clcompute gray on every input kind: OpenCV's own output is the oracle where the container is
# lossless; refused inputs give a message, a non-zero exit and no output file.
set(out "${WORK}/tool_gray")
file(REMOVE_RECURSE "${out}")
file(MAKE_DIRECTORY "${out}")

function(convert name input)
  execute_process(COMMAND "${TOOL}" gray "${DATA}/${input}" "${out}/${name}.png" ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gray ${input}: exit ${rc}: ${err}")
  endif()
endfunction()

function(same a b)
  execute_process(COMMAND "${DIFF}" ${ARGV} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${a} vs ${b}: ${err}")
  endif()
endfunction()

foreach(name rgb rgba gray gray_alpha)
  convert(${name} ${name}.png)
  same("${out}/${name}.png" "${DATA}/${name}.gray.png")
endforeach()
foreach(ext bmp ppm tga)
  convert(rgb_${ext} rgb.${ext})
  same("${out}/rgb_${ext}.png" "${DATA}/rgb.gray.png")
endforeach()
# JPEG: decoded as OpenCV's imread decodes it (libjpeg-turbo, accurate IDCT, smooth 4:2:0
# upsampling, EXIF orientation applied), so the oracle is OpenCV's own
# cvtColor(imread(NAME.jpg), COLOR_BGR2GRAY), bit for bit: NAME_jpg.gray.png.
foreach(name rgb photo420 photo420_exif3 photo420_exif5 photo420_exif6 photo420_exif8 cmyk)
  convert(${name}_jpg ${name}.jpg)
  same("${out}/${name}_jpg.png" "${DATA}/${name}_jpg.gray.png")
endforeach()
convert(rgb_709 rgb.png --weights bt709)
# 16-bit samples: made 8-bit as imread makes them (the high byte, whatever a PPM's maxval says),
# so the oracle is OpenCV 5.1's cvtColor(imread(NAME), COLOR_BGR2GRAY) again.
foreach(name rgb16 rgba16 gray_alpha16 depth16)
  convert(${name} ${name}.png)
  same("${out}/${name}.png" "${DATA}/${name}.gray.png")
endforeach()
convert(rgb10_ppm rgb10.ppm)
same("${out}/rgb10_ppm.png" "${DATA}/rgb10_ppm.gray.png")

function(refused input expect)
  set(target "${out}/refused.png")
  execute_process(COMMAND "${TOOL}" gray "${input}" "${target}" ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "${expect}")
    message(FATAL_ERROR "gray ${input}: exit ${rc}, message '${err}', wanted '${expect}'")
  endif()
  file(GLOB left "${out}/refused.png*")
  if(left)
    message(FATAL_ERROR "gray ${input} left ${left}")
  endif()
endfunction()

refused("${DATA}/truncated.png" "truncated or corrupt PNG")
refused("${DATA}/bad_idat_crc.png" "truncated or corrupt PNG.*checksum")
refused("${DATA}/iend_cut.png" "truncated or corrupt PNG.*IEND")
# Bytes after a whole IEND are no fault (libpng ignores them too): rgb.png and text after it.
execute_process(COMMAND cat "${DATA}/rgb.png" "${DATA}/not_an_image.png"
                OUTPUT_FILE "${out}/trailing_bytes.png" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot make trailing_bytes.png")
endif()
execute_process(COMMAND "${TOOL}" gray "${out}/trailing_bytes.png" "${out}/trailing.png"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gray of a PNG with bytes after IEND: exit ${rc}: ${err}")
endif()
same("${out}/trailing.png" "${DATA}/rgb.gray.png")
refused("${DATA}/not_an_image.png" "not an image")
refused("${DATA}/missing.png" "No such file")
refused("${DATA}" "is a directory")
refused("${DATA}/rgb.png" "weights" --weights bt2020)
refused("${DATA}/rgb.png" "matched no" --device no-such-device)

# The output's format follows its extension: JPEG bytes in .jpg, PGM in .pgm, ... and a name that
# says no format written is refused before the input is even read.
foreach(ext jpg jpeg JPG pgm bmp tga png)
  execute_process(COMMAND "${TOOL}" gray "${DATA}/rgb.png" "${out}/format.${ext}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gray to .${ext}: exit ${rc}: ${err}")
  endif()
  file(READ "${out}/format.${ext}" magic LIMIT 8 HEX)
  string(TOLOWER "${ext}" lower)
  set(want_jpg "^ffd8ff")
  set(want_jpeg "^ffd8ff")
  set(want_pgm "^5035") # P5
  set(want_bmp "^424d") # BM
  set(want_png "^89504e47")
  set(want_tga "^0000(03|0b)") # no signature: gray (RLE or not), no colour map
  if(NOT magic MATCHES "${want_${lower}}")
    message(FATAL_ERROR "gray to .${ext} wrote bytes ${magic}")
  endif()
endforeach()
same("${out}/format.pgm" "${DATA}/rgb.gray.png")
execute_process(COMMAND "${TOOL}" gray "${DATA}/missing.png" "${out}/refused.xyz"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "cannot write '.*refused.xyz': its extension names no image")
  message(FATAL_ERROR "gray to .xyz: exit ${rc}, '${err}'")
endif()

execute_process(COMMAND "${TOOL}" gray "${DATA}/rgb.png" "${out}/no/such/dir/x.png"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "cannot create")
  message(FATAL_ERROR "missing output directory: exit ${rc}, '${err}'")
endif()
message(STATUS "tool gray: all inputs converted or refused as expected")

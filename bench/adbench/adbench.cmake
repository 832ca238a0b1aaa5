# bench/adbench (issue 10), included from bench/CMakeLists.txt.  Not part of
# the default build: `cmake --build build --target bench_adbench` builds
# build/bench/adbench.  CTest runs only `adbench --quick` (bench/adbench-quick).
#
# ADBench's sources and data are not ours to copy: two folders are given to
# the build (.ci/run hands over CI's shared copies):
#   CHAD_ADBENCH_C     ADBench's plain-C objectives (gmm/gmm.c, ba/ba.c,
#                      lstm/lstm.c, defs.h); without it those rows say skipped
#   CHAD_ADBENCH_DATA  their inputs (examples/CMakeLists.txt defines it);
#                      without it adbench generates inputs of the same shapes
#
# From each ADBench source the build makes, in build/bench/adbench.d:
#   adb_P.o    the source compiled without the plugin (symbols prefixed adb_)
#   chad_P.o   a copy with the attribute added to every function (annotate.py,
#              nothing else changed) compiled with the plugin (prefix chad_);
#              while chad cannot compile it, an empty object, and
#              chad_P_status.c keeps the first error for the row
#   adolc_P.o  ADOL-C taping the same source (adolc_shim.h), if libadolc-dev
# and port_gmm.o, examples/gmm.c compiled with the plugin (prefix port_).
set(CHAD_ADBENCH_C "" CACHE PATH
    "Folder with ADBench's plain-C objectives (gmm/gmm.c, ba/ba.c, lstm/lstm.c, defs.h) for bench/adbench")

set(ab_src ${CMAKE_CURRENT_SOURCE_DIR}/adbench)
set(ab_dir ${CMAKE_CURRENT_BINARY_DIR}/adbench.d)
set(ab_exe ${CMAKE_CURRENT_BINARY_DIR}/adbench)
file(MAKE_DIRECTORY ${ab_dir})
find_path(CHAD_ADOLC_INCLUDE_DIR adolc/adolc.h)
find_library(CHAD_ADOLC_LIBRARY adolc)
find_program(CHAD_PYTHON3 python3)

set(ab_objects)
set(ab_status)
set(ab_libs -lm)
if(CHAD_ADOLC_INCLUDE_DIR AND CHAD_ADOLC_LIBRARY)
  set(ab_adolc ON)
  list(APPEND ab_libs ${CHAD_ADOLC_LIBRARY} -lstdc++)
else()
  message(STATUS "bench/adbench: ADOL-C (libadolc-dev) not found: its rows are skipped")
endif()
if(CHAD_ADBENCH_C AND NOT CHAD_PYTHON3)
  message(WARNING "bench/adbench: python3 not found: chad's rows on ADBench's sources are skipped")
endif()

foreach(p gmm ba lstm)
  set(status ${ab_dir}/chad_${p}_status.c)
  list(APPEND ab_status ${status})
  if(NOT CHAD_ADBENCH_C OR NOT CHAD_PYTHON3)
    file(WRITE ${status} "const char chad_${p}_status[] = \"no CHAD_ADBENCH_C or python3 at build time\";\n")
    continue()
  endif()
  set(in ${CHAD_ADBENCH_C}/${p}/${p}.c)
  add_custom_command(OUTPUT ${ab_dir}/adb_${p}.o
    COMMAND ${CHAD_CLANG} -O2 -I${CHAD_ADBENCH_C}/${p} -c ${in} -o ${ab_dir}/adb_${p}.o
    COMMAND bash ${ab_src}/rename_syms.sh ${ab_dir}/adb_${p}.o adb_
    DEPENDS ${in} ${ab_src}/rename_syms.sh
    COMMENT "adbench: ADBench's ${p}.c without the plugin" VERBATIM)
  add_custom_command(OUTPUT ${ab_dir}/${p}.c
    COMMAND ${CHAD_PYTHON3} ${ab_src}/annotate.py ${in} ${ab_dir}/${p}.c
    DEPENDS ${in} ${ab_src}/annotate.py
    COMMENT "adbench: the attribute added to ${p}.c's functions" VERBATIM)
  add_custom_command(OUTPUT ${ab_dir}/chad_${p}.o ${status}
    COMMAND bash ${ab_src}/chad_compile.sh ${CHAD_CLANG} $<TARGET_FILE:chad> ${ab_dir}/${p}.c
            ${ab_dir}/chad_${p}.o ${status} chad_${p}_status chad_ -O2 -I${CHAD_ADBENCH_C}/${p}
    DEPENDS chad ${ab_dir}/${p}.c ${ab_src}/chad_compile.sh ${ab_src}/rename_syms.sh
    COMMENT "adbench: ${p}.c with the chad plugin (a failure is recorded, not fatal)" VERBATIM)
  list(APPEND ab_objects ${ab_dir}/adb_${p}.o ${ab_dir}/chad_${p}.o)
  if(ab_adolc)
    string(TOUPPER ${p} P)
    add_custom_command(OUTPUT ${ab_dir}/adolc_${p}.o
      COMMAND ${CHAD_CLANG} -x c++ -std=c++17 -O2 -w -I${ab_src} -I${CHAD_ADOLC_INCLUDE_DIR}
              -DCHAD_ADBENCH_C_${P}="${in}" -c ${ab_src}/adolc_${p}.cpp -o ${ab_dir}/adolc_${p}.o
      DEPENDS ${in} ${ab_src}/adolc_${p}.cpp ${ab_src}/adolc_shim.h ${ab_src}/adolc_end.h ${ab_src}/adolc_api.h
      COMMENT "adbench: ADOL-C taping ADBench's ${p}.c" VERBATIM)
    list(APPEND ab_objects ${ab_dir}/adolc_${p}.o)
  endif()
endforeach()

if(CHAD_ADBENCH_C)
  set(ab_have_c 1)
else()
  set(ab_have_c 0)
endif()
file(WRITE ${ab_dir}/config.c "const int adbench_have_c = ${ab_have_c};\n")

add_custom_command(OUTPUT ${ab_dir}/port_gmm.o
  COMMAND ${CHAD_CLANG} -fplugin=$<TARGET_FILE:chad> -O2 -I${CMAKE_SOURCE_DIR}/include -std=c11
          -c ${CMAKE_SOURCE_DIR}/examples/gmm.c -o ${ab_dir}/port_gmm.o
  COMMAND bash ${ab_src}/rename_syms.sh ${ab_dir}/port_gmm.o port_
  DEPENDS chad ${CMAKE_SOURCE_DIR}/examples/gmm.c ${CMAKE_SOURCE_DIR}/include/chad.h ${ab_src}/rename_syms.sh
  COMMENT "adbench: examples/gmm.c (chad's port) with the plugin" VERBATIM)
list(APPEND ab_objects ${ab_dir}/port_gmm.o)

set(ab_harness adbench.c gmm.c ba.c hand_ba.c lstm.c hand_lstm.c chart.c)
list(TRANSFORM ab_harness PREPEND ${ab_src}/)
add_custom_command(OUTPUT ${ab_exe}
  COMMAND ${CHAD_CLANG} -O2 -g -std=c11 -Wall -Wextra -I${ab_src}
          -DADBENCH_DATA="${CHAD_ADBENCH_DATA}" -DADBENCH_C="${CHAD_ADBENCH_C}"
          -DADBENCH_SCRIPT_DIR="${ab_src}" -DADBENCH_CLANG="${CHAD_CLANG}"
          -DADBENCH_PLUGIN="$<TARGET_FILE:chad>" -DADBENCH_INCLUDE="${CMAKE_SOURCE_DIR}/include"
          -DADBENCH_EXAMPLES="${CMAKE_SOURCE_DIR}/examples"
          ${ab_harness} ${ab_dir}/config.c ${ab_status} ${ab_objects} ${ab_libs} -o ${ab_exe}
  DEPENDS ${ab_harness} ${ab_src}/adbench.h ${ab_src}/symbols.h ${ab_src}/chart.h ${ab_src}/adolc_api.h
          ${ab_status} ${ab_objects}
  COMMENT "adbench: the harness" VERBATIM)
add_custom_target(bench_adbench DEPENDS ${ab_exe})

# The smoke test: tiny sizes, every derivative checked, timings not judged;
# chad must compile ADBench's gmm.c and ba.c as written (when given).
add_test(NAME bench/adbench-quick
  COMMAND sh -c "\"$1\" --build \"$2\" --target bench_adbench >/dev/null && \"$3\" --quick --require-chad gmm,ba,lstm"
          sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR} ${ab_exe})

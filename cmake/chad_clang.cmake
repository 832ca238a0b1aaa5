# chad_clang.cmake (included by CMakeLists.txt): which clang the plugin is built for.
#
# A plugin runs inside one clang and must be compiled against that clang's
# own headers, so the version comes from the compiler, never from whichever
# Clang CMake package happens to be found first (Debian installs several
# side by side, in an order find_package does not promise).
#
#   -DCHAD_CLANG=clang-16        a compiler name on the PATH, or a path
#   -DLLVM_DIR=... / -DClang_DIR=...   a CMake package; its clang is used
#   neither                      `clang` on the PATH, else the newest clang-N
#
# Sets CHAD_CLANG (the compiler's path), CHAD_CLANG_VERSION (its major
# version) and Clang_FOUND, with Clang's and LLVM's package variables.

# The major version of the compiler `cc`, from `cc -dumpversion`.
function(chad_clang_major cc out)
  execute_process(COMMAND ${cc} -dumpversion OUTPUT_VARIABLE v
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCH "^[0-9]+" major "${v}")
  if(NOT rc EQUAL 0 OR NOT major)
    message(FATAL_ERROR "chad: cannot tell the version of '${cc}' (-dumpversion)")
  endif()
  set(${out} ${major} PARENT_SCOPE)
endfunction()

# Where the Clang CMake package of compiler `cc` (major `major`) may be:
# beside its real binary (prefix/bin/clang -> prefix/lib/cmake/clang, as in
# an LLVM install and Debian's /usr/lib/llvm-N) and in Debian's
# /usr/lib/cmake/clang-N.
function(chad_clang_hints cc major out)
  get_filename_component(real ${cc} REALPATH)
  get_filename_component(bindir ${real} DIRECTORY)
  get_filename_component(prefix ${bindir} DIRECTORY)
  set(${out} ${prefix}/lib/cmake/clang ${prefix}/lib64/cmake/clang
             /usr/lib/cmake/clang-${major} /usr/lib/llvm-${major}/lib/cmake/clang
      PARENT_SCOPE)
endfunction()

set(CHAD_CLANG "" CACHE STRING
    "the clang the plugin is built for: a name on the PATH (clang-16) or a path")

if(NOT CHAD_CLANG AND (LLVM_DIR OR Clang_DIR))
  # A package named: its own clang is the compiler.
  if(LLVM_DIR AND NOT Clang_DIR)
    set(Clang_DIR ${LLVM_DIR}/../clang)
  endif()
  find_package(Clang CONFIG)
  if(Clang_FOUND)
    set(_chad_cc ${LLVM_TOOLS_BINARY_DIR}/clang)
    if(NOT EXISTS ${_chad_cc})
      find_program(_chad_cc NAMES clang-${LLVM_VERSION_MAJOR} clang)
    endif()
    set(CHAD_CLANG ${_chad_cc})
    set(CHAD_CLANG_VERSION ${LLVM_VERSION_MAJOR})
  endif()
  return()
endif()

set(_chad_names ${CHAD_CLANG})
if(NOT CHAD_CLANG)
  set(_chad_names clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
endif()
# A changed -DCHAD_CLANG is looked up again.
if(NOT "${CHAD_CLANG}" STREQUAL "${_CHAD_CLANG_ASKED}")
  unset(CHAD_CLANG_PATH CACHE)
  set(_CHAD_CLANG_ASKED "${CHAD_CLANG}" CACHE INTERNAL "")
endif()
find_program(CHAD_CLANG_PATH NAMES ${_chad_names})
if(NOT CHAD_CLANG_PATH)
  message(WARNING "chad: no clang found (${_chad_names})")
  set(Clang_FOUND FALSE)
  return()
endif()
chad_clang_major(${CHAD_CLANG_PATH} CHAD_CLANG_VERSION)
chad_clang_hints(${CHAD_CLANG_PATH} ${CHAD_CLANG_VERSION} _chad_hints)
find_package(Clang CONFIG HINTS ${_chad_hints} NO_DEFAULT_PATH)
if(Clang_FOUND AND NOT LLVM_VERSION_MAJOR STREQUAL CHAD_CLANG_VERSION)
  message(FATAL_ERROR "chad: ${CHAD_CLANG_PATH} is clang ${CHAD_CLANG_VERSION} but "
                      "the Clang package found is ${LLVM_VERSION} (${Clang_DIR}): "
                      "use a fresh build directory, or set Clang_DIR")
endif()
set(CHAD_CLANG ${CHAD_CLANG_PATH})

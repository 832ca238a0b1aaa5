# chadConfig.cmake: use the chad plugin from a CMake project.
#
#   find_package(chad REQUIRED)            # CMAKE_PREFIX_PATH or chad_DIR
#   add_executable(app a.c b.c)
#   chad_differentiate(app)                # compiles app with -fplugin=...
#   chad_generate_header(app SOURCE a.c HEADER ${CMAKE_CURRENT_BINARY_DIR}/a_chad.h)
#
# A plugin works only in the clang it was built for. An installed prefix
# may hold plugins for several versions (lib/chad/clang-N/libchad.so, one
# Debian package chad-clang-N each): chad_differentiate takes the one for
# the project's C compiler, which must be clang of one of
# CHAD_CLANG_VERSIONS. CHAD_CLANG and CHAD_CLANG_VERSION name a default,
# for -DCMAKE_C_COMPILER=${CHAD_CLANG}: the project's C compiler if it has
# a plugin, else the newest version there is.
#
# This file names no version: it is the same for every version installed
# (and in the package chad-common). A build tree's chadConfig.cmake sets
# the variables for its own plugin and includes it.
if(NOT _chad_build_tree)
  # Installed: prefix/lib/cmake/chad/chadConfig.cmake, relocatable.
  get_filename_component(CHAD_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
  set(CHAD_INCLUDE_DIR "${CHAD_PREFIX}/include")
  set(CHAD_CACHE_ENV "${CHAD_PREFIX}/lib/chad/chad-cache-env")
  file(GLOB _chad_plugins "${CHAD_PREFIX}/lib/chad/clang-*/libchad.so")
  set(CHAD_CLANG_VERSIONS "")
  set(CHAD_CLANG_VERSION "")
  foreach(_p ${_chad_plugins})
    string(REGEX MATCH "clang-([0-9]+)/libchad.so$" _m "${_p}")
    if(_m)
      list(APPEND CHAD_CLANG_VERSIONS ${CMAKE_MATCH_1})
      if(NOT CHAD_CLANG_VERSION OR CMAKE_MATCH_1 GREATER CHAD_CLANG_VERSION)
        set(CHAD_CLANG_VERSION ${CMAKE_MATCH_1})
      endif()
    endif()
  endforeach()
  if(NOT CHAD_CLANG_VERSIONS)
    set(chad_FOUND FALSE)
    set(chad_NOT_FOUND_MESSAGE "no plugin in ${CHAD_PREFIX}/lib/chad: install one "
                               "(the package chad-clang-N for clang N)")
    return()
  endif()
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    string(REGEX MATCH "^[0-9]+" _m "${CMAKE_C_COMPILER_VERSION}")
    if(_m IN_LIST CHAD_CLANG_VERSIONS)
      set(CHAD_CLANG_VERSION ${_m})
    endif()
  endif()
  set(CHAD_PLUGIN "${CHAD_PREFIX}/lib/chad/clang-${CHAD_CLANG_VERSION}/libchad.so")
  set(CHAD_CLANG "clang-${CHAD_CLANG_VERSION}")
  if(EXISTS "${CHAD_PREFIX}/lib/chad/clang-${CHAD_CLANG_VERSION}/compiler")
    file(STRINGS "${CHAD_PREFIX}/lib/chad/clang-${CHAD_CLANG_VERSION}/compiler" _m LIMIT_COUNT 1)
    if(_m AND EXISTS "${_m}")
      set(CHAD_CLANG "${_m}")
    endif()
  endif()
endif()

# The plugin for clang `major` in `out`, or an error naming the versions
# there are.
function(chad_plugin_for major out)
  if(NOT major IN_LIST CHAD_CLANG_VERSIONS)
    message(FATAL_ERROR "chad: no plugin for clang ${major}; there are plugins for "
                        "clang ${CHAD_CLANG_VERSIONS} (configure with "
                        "-DCMAKE_C_COMPILER=clang-N for one of them)")
  endif()
  if(CHAD_PREFIX)
    set(${out} "${CHAD_PREFIX}/lib/chad/clang-${major}/libchad.so" PARENT_SCOPE)
  else()
    set(${out} "${CHAD_PLUGIN}" PARENT_SCOPE)
  endif()
endfunction()

function(chad_differentiate target)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "chad: '${target}' must be compiled with clang "
                        "${CHAD_CLANG_VERSIONS} (${CHAD_CLANG}), not ${CMAKE_C_COMPILER_ID}")
  endif()
  string(REGEX MATCH "^[0-9]+" _major "${CMAKE_C_COMPILER_VERSION}")
  chad_plugin_for(${_major} _plugin)
  target_compile_options(${target} PRIVATE "-fplugin=${_plugin}")
  target_include_directories(${target} PRIVATE "${CHAD_INCLUDE_DIR}")
  set_property(TARGET ${target} PROPERTY CHAD_PLUGIN "${_plugin}")
  # the plugin's output changes with the plugin: rebuild when it does
  get_target_property(_sources ${target} SOURCES)
  set_property(SOURCE ${_sources} TARGET_DIRECTORY ${target}
               APPEND PROPERTY OBJECT_DEPENDS "${_plugin}")
  # Under a compiler launcher (-DCMAKE_C_COMPILER_LAUNCHER=ccache, which
  # sets the target's C_COMPILER_LAUNCHER when it is created): run it
  # through chad-cache-env, which puts the plugin into ccache's key
  # (CCACHE_EXTRAFILES) and does not cache the compiles that write a header.
  get_target_property(_launcher ${target} C_COMPILER_LAUNCHER)
  if(_launcher)
    list(GET _launcher 0 _first)
    if(NOT _first STREQUAL CHAD_CACHE_ENV)
      set_property(TARGET ${target} PROPERTY C_COMPILER_LAUNCHER
                   "${CHAD_CACHE_ENV}" "${_plugin}" ${_launcher})
    endif()
  endif()
  find_library(_chad_libm m)
  if(_chad_libm)
    target_link_libraries(${target} PRIVATE ${_chad_libm})
  endif()
endfunction()

# chad_generate_header(target SOURCE a.c HEADER /abs/a_chad.h): compiling
# a.c (with the plugin: call chad_differentiate first) also writes a header
# declaring the f_fwd/f_rev generated from a.c
# (-fplugin-arg-chad-header=FILE). The target's other sources are compiled
# after it and see the header's directory; another target that includes it
# needs add_dependencies() on this one.
function(chad_generate_header target)
  cmake_parse_arguments(_chad "" "SOURCE;HEADER" "" ${ARGN})
  if(NOT _chad_SOURCE OR NOT _chad_HEADER)
    message(FATAL_ERROR "chad_generate_header(${target} SOURCE <file> HEADER <file>)")
  endif()
  get_target_property(_plugin ${target} CHAD_PLUGIN)
  if(NOT _plugin)
    message(FATAL_ERROR "chad_generate_header: call chad_differentiate(${target}) first")
  endif()
  get_filename_component(_header "${_chad_HEADER}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  get_filename_component(_dir "${_header}" DIRECTORY)
  file(MAKE_DIRECTORY "${_dir}")
  set_property(SOURCE ${_chad_SOURCE} TARGET_DIRECTORY ${target}
               APPEND PROPERTY COMPILE_OPTIONS "-fplugin-arg-chad-header=${_header}")
  set_property(SOURCE ${_chad_SOURCE} TARGET_DIRECTORY ${target}
               APPEND PROPERTY OBJECT_OUTPUTS "${_header}")
  get_target_property(_sources ${target} SOURCES)
  list(REMOVE_ITEM _sources ${_chad_SOURCE})
  if(_sources)
    set_property(SOURCE ${_sources} TARGET_DIRECTORY ${target}
                 APPEND PROPERTY OBJECT_DEPENDS "${_header}")
  endif()
  target_include_directories(${target} PRIVATE "${_dir}")
endfunction()

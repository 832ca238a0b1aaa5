# install.cmake (included by CMakeLists.txt once the plugin target exists):
# the CMake package of the build tree, and what `cmake --install` places.
#
# One prefix holds plugins for several clang versions side by side, one
# build (and one install) per version. What is the clang version's own
# (install component `plugin`, Debian package chad-clang-N):
#   lib/chad/clang-N/libchad.so   the plugin
#   lib/chad/clang-N/compiler     the path of that clang (one line)
#   lib/chad/clang-N/chad-clang   the wrapper, defaulting to clang N
#   bin/chad-clang-N              the wrapper, as clang N (chad-clang(1))
#   lib/pkgconfig/chad-clang-N.pc
# What every version shares (component `common`, package chad-common): the
# same files whichever build installs them, naming no version.
#   bin/chad-clang                the wrapper: $CHAD_CLANG, else the newest
#   lib/chad/chad-cache-env       runs a compiler launcher (ccache) with the
#                                 plugin in its key, for chadConfig.cmake
#   include/chad.h
#   lib/cmake/chad/chadConfig.cmake    find_package(chad): picks the plugin
#                                      matching the project's compiler
#   lib/pkgconfig/chad.pc         CC=chad-clang, -I for chad.h, -lm
#   share/man/man1/chad-clang.1
# The three copies of the wrapper are one file, cmake/chad-clang, which
# tells the version from its name or directory. Everything finds the rest
# relative to itself, so the prefix can move (cmake --install --prefix,
# DESTDIR, a .deb).
set(CHAD_PLUGIN_SUBDIR lib/chad/clang-${CHAD_CLANG_VERSION})
set(CHAD_GEN_DIR ${CMAKE_BINARY_DIR}/install)

# The build tree's package: this build's plugin and the source's chad.h.
configure_file(${CMAKE_SOURCE_DIR}/cmake/chadConfig-build.cmake.in
               ${CMAKE_BINARY_DIR}/chadConfig.cmake.in.gen @ONLY)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/chadConfig.cmake
     INPUT ${CMAKE_BINARY_DIR}/chadConfig.cmake.in.gen)

configure_file(${CMAKE_SOURCE_DIR}/cmake/chad.pc.in ${CHAD_GEN_DIR}/chad.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/chad-clang.pc.in
               ${CHAD_GEN_DIR}/chad-clang-${CHAD_CLANG_VERSION}.pc @ONLY)
file(WRITE ${CHAD_GEN_DIR}/compiler "${CHAD_CLANG}\n")

set(_chad_wrapper ${CMAKE_SOURCE_DIR}/cmake/chad-clang)
install(TARGETS chad LIBRARY DESTINATION ${CHAD_PLUGIN_SUBDIR} COMPONENT plugin)
install(FILES ${CHAD_GEN_DIR}/compiler DESTINATION ${CHAD_PLUGIN_SUBDIR} COMPONENT plugin)
install(PROGRAMS ${_chad_wrapper} DESTINATION ${CHAD_PLUGIN_SUBDIR} COMPONENT plugin)
install(PROGRAMS ${_chad_wrapper} DESTINATION bin
        RENAME chad-clang-${CHAD_CLANG_VERSION} COMPONENT plugin)
install(FILES ${CHAD_GEN_DIR}/chad-clang-${CHAD_CLANG_VERSION}.pc
        DESTINATION lib/pkgconfig COMPONENT plugin)

install(PROGRAMS ${_chad_wrapper} DESTINATION bin COMPONENT common)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/cmake/chad-cache-env DESTINATION lib/chad COMPONENT common)
install(FILES ${CMAKE_SOURCE_DIR}/include/chad.h DESTINATION include COMPONENT common)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/chadConfig.cmake DESTINATION lib/cmake/chad
        COMPONENT common)
install(FILES ${CHAD_GEN_DIR}/chad.pc DESTINATION lib/pkgconfig COMPONENT common)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/chad-clang.1 DESTINATION share/man/man1
        COMPONENT common)

# Debian packages (cpack -G DEB in a build directory), installing into
# /usr, one per component:
#   chad-clang-N_<version>_<arch>.deb   the plugin for clang N; depends on
#                                       clang-N and on chad-common
#   chad-common_<version>_all.deb       the rest; the same from every build
# Packages for several versions install side by side: no file is in two.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME chad)
set(CPACK_PACKAGE_VENDOR chad)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON) # the plugin without its debug info: 1 MB, not 20
set(CPACK_COMPONENTS_ALL plugin common)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "chad developers <chad@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)

set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME chad-clang-${CHAD_CLANG_VERSION})
set(CPACK_COMPONENT_PLUGIN_DESCRIPTION
    "CHAD automatic differentiation of C: plugin for clang ${CHAD_CLANG_VERSION}
The clang plugin libchad.so for clang ${CHAD_CLANG_VERSION}, the wrapper
chad-clang-${CHAD_CLANG_VERSION} and chad-clang-${CHAD_CLANG_VERSION}.pc.
Plugins for other clang versions install beside it.")
set(CPACK_DEBIAN_PLUGIN_PACKAGE_DEPENDS
    "chad-common (= ${PROJECT_VERSION}), clang-${CHAD_CLANG_VERSION}, libc6")

set(CPACK_DEBIAN_COMMON_PACKAGE_NAME chad-common)
set(CPACK_DEBIAN_COMMON_PACKAGE_ARCHITECTURE all)
set(CPACK_COMPONENT_COMMON_DESCRIPTION
    "CHAD automatic differentiation of C: files for every clang version
The header chad.h, the wrapper chad-clang, which runs the clang of an
installed plugin (package chad-clang-N), its man page, chad.pc and the
CMake package (find_package(chad)).")
include(CPack)

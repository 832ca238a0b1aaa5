# install.cmake (included by CMakeLists.txt once the plugin target exists):
# the CMake package of the build tree, and what `cmake --install` places.
#
# One prefix holds plugins for several clang versions side by side, one
# build (and one install) per version:
#   lib/chad/clang-N/libchad.so   the plugin
#   lib/chad/clang-N/compiler     the path of that clang (one line)
#   lib/chad/clang-N/chad-clang   the wrapper, defaulting to clang N
#   bin/chad-clang, bin/chad-clang-N   the wrapper (chad-clang(1))
#   lib/chad/chad-cache-env       runs a compiler launcher (ccache) with the
#                                 plugin in its key, for chadConfig.cmake
#   include/chad.h
#   lib/cmake/chad/chadConfig.cmake    find_package(chad): picks the plugin
#                                      matching the project's compiler
#   lib/pkgconfig/chad.pc, chad-clang-N.pc
#   share/man/man1/chad-clang.1
# Files every version installs (chad.h, chadConfig.cmake, the man page) are
# the same for all; bin/chad-clang and chad.pc name a default version, the
# one installed last. Everything finds the rest relative to itself, so the
# prefix can move (cmake --install --prefix, DESTDIR, a .deb).
set(CHAD_PLUGIN_SUBDIR lib/chad/clang-${CHAD_CLANG_VERSION})
set(CHAD_GEN_DIR ${CMAKE_BINARY_DIR}/install)

# The build tree's package: this build's plugin and the source's chad.h.
set(CHAD_CONFIG_BUILD_TREE TRUE)
configure_file(${CMAKE_SOURCE_DIR}/cmake/chadConfig.cmake.in
               ${CMAKE_BINARY_DIR}/chadConfig.cmake.in.gen @ONLY)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/chadConfig.cmake
     INPUT ${CMAKE_BINARY_DIR}/chadConfig.cmake.in.gen)

set(CHAD_CONFIG_BUILD_TREE FALSE)
configure_file(${CMAKE_SOURCE_DIR}/cmake/chadConfig.cmake.in
               ${CHAD_GEN_DIR}/chadConfig.cmake @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/chad-clang.in ${CHAD_GEN_DIR}/chad-clang @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/chad.pc.in ${CHAD_GEN_DIR}/chad.pc @ONLY)
file(WRITE ${CHAD_GEN_DIR}/compiler "${CHAD_CLANG}\n")

install(TARGETS chad LIBRARY DESTINATION ${CHAD_PLUGIN_SUBDIR})
install(FILES ${CHAD_GEN_DIR}/compiler DESTINATION ${CHAD_PLUGIN_SUBDIR})
install(PROGRAMS ${CHAD_GEN_DIR}/chad-clang DESTINATION ${CHAD_PLUGIN_SUBDIR})
install(PROGRAMS ${CHAD_GEN_DIR}/chad-clang DESTINATION bin)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/cmake/chad-cache-env DESTINATION lib/chad)
install(PROGRAMS ${CHAD_GEN_DIR}/chad-clang DESTINATION bin
        RENAME chad-clang-${CHAD_CLANG_VERSION})
install(FILES ${CMAKE_SOURCE_DIR}/include/chad.h DESTINATION include)
install(FILES ${CHAD_GEN_DIR}/chadConfig.cmake DESTINATION lib/cmake/chad)
install(FILES ${CHAD_GEN_DIR}/chad.pc DESTINATION lib/pkgconfig)
install(FILES ${CHAD_GEN_DIR}/chad.pc DESTINATION lib/pkgconfig
        RENAME chad-clang-${CHAD_CLANG_VERSION}.pc)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/chad-clang.1 DESTINATION share/man/man1)

# Debian packages (cpack -G DEB in a build directory): one per clang
# version, chad-clang-N, installing into /usr. Each is complete (header,
# wrapper, CMake and pkg-config files), so two of them would own the same
# files: they conflict, and one is installed at a time.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME chad-clang-${CHAD_CLANG_VERSION})
set(CPACK_PACKAGE_VENDOR chad)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "CHAD automatic differentiation of C: plugin for clang ${CHAD_CLANG_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON) # the plugin without its debug info: 1 MB, not 20
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "chad developers <chad@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "clang-${CHAD_CLANG_VERSION}, libc6")
set(CPACK_DEBIAN_PACKAGE_PROVIDES chad)
set(CPACK_DEBIAN_PACKAGE_CONFLICTS chad)
include(CPack)

# SPDX-License-Identifier: MIT
# install.cmake: what `cmake --install` puts where, the packages other
# projects find us by, and the Debian package (docs/install.md).
#
#   include/mabutrace/{mabutrace,version}.h   the public API
#   lib/libmabutrace.a (+ _core, _http, _format) the static runtime, or
#   lib/libmabutrace.so.N                       with -DBUILD_SHARED_LIBS=ON
#   lib/cmake/mabutrace/                        find_package(mabutrace CONFIG)
#   lib/pkgconfig/mabutrace.pc                  pkg-config (relocatable)
#   bin/mabutrace, share/man/man1/mabutrace.1   the CLI and its man page
#   share/doc/mabutrace/                        README, LICENSE, CHANGELOG, docs/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(MABUTRACE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mabutrace)

# A static libmabutrace needs the static libraries it is made of; a shared
# one holds them all.
if(BUILD_SHARED_LIBS)
  set(MABUTRACE_INSTALLED_LIBS mabutrace)
  set(MABUTRACE_PC_LIBS "-lmabutrace -pthread")
else()
  set(MABUTRACE_INSTALLED_LIBS mabutrace mabutrace_http mabutrace_core mabutrace_format)
  set(MABUTRACE_PC_LIBS "-lmabutrace -lmabutrace_http -lmabutrace_core -lmabutrace_format -lstdc++ -pthread")
endif()
set(MABUTRACE_PC_REQUIRES "")
set(MABUTRACE_PC_REQUIRES_PRIVATE "")
if(MABUTRACE_HTTP_SERVER)
  if(BUILD_SHARED_LIBS)
    set(MABUTRACE_PC_REQUIRES_PRIVATE "cpp-httplib")
  else()
    set(MABUTRACE_PC_REQUIRES "cpp-httplib")
  endif()
endif()

install(TARGETS ${MABUTRACE_INSTALLED_LIBS} EXPORT mabutraceTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/mabutrace/mabutrace.h include/mabutrace/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mabutrace)
install(EXPORT mabutraceTargets NAMESPACE mabutrace:: DESTINATION ${MABUTRACE_CMAKE_INSTALL_DIR})
if(BUILD_SHARED_LIBS)
  set(MABUTRACE_CONFIG_SHARED ON)
else()
  set(MABUTRACE_CONFIG_SHARED OFF)
endif()
configure_package_config_file(cmake/mabutraceConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mabutraceConfig.cmake
  INSTALL_DESTINATION ${MABUTRACE_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mabutraceConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mabutraceConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/mabutraceConfigVersion.cmake
        DESTINATION ${MABUTRACE_CMAKE_INSTALL_DIR})
file(RELATIVE_PATH MABUTRACE_PC_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/mabutrace.pc.in ${CMAKE_CURRENT_BINARY_DIR}/mabutrace.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mabutrace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES README.md LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# The CLI and its man page (help2man runs `mabutrace --help` / `--version`).
if(TARGET mabutrace_cli)
  install(TARGETS mabutrace_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  find_program(HELP2MAN help2man)
  if(HELP2MAN)
    set(MABUTRACE_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/man/mabutrace.1)
    add_custom_command(OUTPUT ${MABUTRACE_MAN_PAGE}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
      COMMAND ${HELP2MAN} --no-info --section=1
              "--name=record, decode and convert traces (software, Arm ETE, TI CP_Tracer)"
              --output=${MABUTRACE_MAN_PAGE} $<TARGET_FILE:mabutrace_cli>
      COMMAND gzip -n -9 -f ${MABUTRACE_MAN_PAGE}
      DEPENDS mabutrace_cli
      COMMENT "Man page: mabutrace.1.gz (help2man)"
      VERBATIM)
    add_custom_target(mabutrace_man ALL DEPENDS ${MABUTRACE_MAN_PAGE}.gz)
    install(FILES ${MABUTRACE_MAN_PAGE}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  else()
    message(STATUS "mabutrace: help2man not found: no man page (apt-get install help2man)")
  endif()
endif()

# ---- Debian package: `make package` (cpack -G DEB) -------------------------
# mabutrace_<version>_<arch>.deb: everything above under /usr. Depends: the
# shared libraries the CLI links (dpkg-shlibdeps), and what a program that
# links the static library needs at its own build (cpp-httplib's -dev
# package, found through pkg-config).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mabutrace)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Tracing toolkit for firmware and native C++: record, decode, view in Perfetto")
set(CPACK_PACKAGE_DESCRIPTION
    "TRACE_SCOPE/TRACE_INSTANT/TRACE_COUNTER/TRACE_FLOW into a pre-allocated ring buffer, exported as Chrome JSON or Perfetto protobuf; the mabutrace CLI converts streams and RAM dumps and decodes Arm ETE and TI CP_Tracer trace.")
set(CPACK_PACKAGE_CONTACT "mabutrace contributors <mabutrace@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/mabuware/mabutrace")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # the CLI without debug info: 20 MB -> a few
set(MABUTRACE_DEB_DEPENDS pkg-config)
if(MABUTRACE_HTTP_SERVER AND NOT BUILD_SHARED_LIBS)
  list(APPEND MABUTRACE_DEB_DEPENDS libcpp-httplib-dev)
endif()
list(JOIN MABUTRACE_DEB_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
include(CPack)

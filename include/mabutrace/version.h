// SPDX-License-Identifier: MIT
/*
 * version.h: the library's version, for code that must check it at compile
 * time (included by mabutrace.h; may be included alone).
 *
 *   MABUTRACE_VERSION_MAJOR / _MINOR / _PATCH   integers, semantic versioning
 *                                              (https://semver.org/): the
 *                                              major changes when the public
 *                                              API or a file format breaks
 *   MABUTRACE_VERSION_STRING                   "MAJOR.MINOR.PATCH"
 *   MABUTRACE_VERSION                          MAJOR * 10000 + MINOR * 100 + PATCH,
 *                                              for #if comparisons
 *
 * The version is set once, in CMakeLists.txt's project(mabutrace VERSION ...).
 * This header is kept in the tree (Arduino and ESP-IDF builds run no CMake
 * configure step), and the manifests repeat the number for their package
 * managers (library.json, library.properties, idf_component.yml); the test
 * scripts.version_consistency fails when any of them differs from project().
 */
#ifndef MABUTRACE_VERSION_H
#define MABUTRACE_VERSION_H

#define MABUTRACE_VERSION_MAJOR 0
#define MABUTRACE_VERSION_MINOR 2
#define MABUTRACE_VERSION_PATCH 0
#define MABUTRACE_VERSION_STRING "0.2.0"
#define MABUTRACE_VERSION (MABUTRACE_VERSION_MAJOR * 10000 + MABUTRACE_VERSION_MINOR * 100 + MABUTRACE_VERSION_PATCH)

#endif /* MABUTRACE_VERSION_H */

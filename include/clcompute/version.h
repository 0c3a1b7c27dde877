/* libclcompute version. CMake reads the project version from these lines. */
#ifndef CLCOMPUTE_VERSION_H
#define CLCOMPUTE_VERSION_H

#define CLC_VERSION_MAJOR 0
#define CLC_VERSION_MINOR 1
#define CLC_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" as a string literal. */
#define CLC_VERSION_STRING "0.1.0"

#endif

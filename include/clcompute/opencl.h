/* The one place the public headers reach OpenCL, so the same code builds against Apple's
 * framework and against Khronos headers with any ICD loader. */
#ifndef CLCOMPUTE_OPENCL_H
#define CLCOMPUTE_OPENCL_H

/* OpenCL 1.2 is the newest version every target (Apple, PoCL, NVIDIA) implements; newer
 * features are used only behind run-time checks. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#if defined(_WIN32) && !defined(CLC_STATIC)
#ifdef CLC_BUILDING_LIBRARY
#define CLC_API __declspec(dllexport)
#else
#define CLC_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define CLC_API __attribute__((visibility("default")))
#else
#define CLC_API
#endif

#endif

/* libclcompute: portable OpenCL compute kernels. Include this one header. */
#ifndef CLCOMPUTE_CLCOMPUTE_H
#define CLCOMPUTE_CLCOMPUTE_H

#include "clcompute/version.h"
#include "clcompute/opencl.h"
#include "clcompute/status.h"
#include "clcompute/runtime.h"
#include "clcompute/copy.h"
#include "clcompute/image.h"
#include "clcompute/gray.h"
#include "clcompute/cloud.h"
#include "clcompute/reduce.h"
#include "clcompute/median.h"
#include "clcompute/batch.h"

#endif

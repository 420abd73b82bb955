// A learned model run through ONNX Runtime, loaded at run time (see onnx.c for why).
//
// Nothing here links against ONNX Runtime: the library is opened with dlopen from a path the
// caller chooses, so Picturebook builds and runs without it and falls back to its classical
// detector. Swift sees an opaque handle, float buffers and error strings; no ONNX Runtime type.
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct pb_onnx_model pb_onnx_model;

/// Opens the ONNX Runtime library at `library_path`, then the model at `model_path`, to run on
/// `threads` threads (0: the runtime's choice). The model must have one float input and one
/// float output. NULL on failure, with a message in `error`.
pb_onnx_model *pb_onnx_open(const char *library_path, const char *model_path, int threads,
                            char *error, size_t error_size);

/// Runs the model on `input` (shape `shape[0..rank)`, row-major floats). On success returns 0 and
/// sets `*output` to a buffer the caller frees with pb_onnx_free, its shape in `out_shape`
/// (at most `out_capacity` dimensions) and its rank in `*out_rank`. Non-zero with a message on error.
int pb_onnx_run(pb_onnx_model *model, const float *input, const int64_t *shape, size_t rank,
                float **output, int64_t *out_shape, size_t out_capacity, size_t *out_rank,
                char *error, size_t error_size);

void pb_onnx_free(float *buffer);

/// The runtime's version string ("1.32.0"), or "" when the model is NULL.
const char *pb_onnx_version(const pb_onnx_model *model);

void pb_onnx_close(pb_onnx_model *model);

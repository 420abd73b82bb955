// ONNX Runtime through its C API, opened with dlopen.
//
// Why dlopen: ONNX Runtime is not packaged by Debian 12. Its shared library comes from the
// `onnxruntime` wheel on PyPI, which Tools/setup.sh --detector installs into a venv; linking
// against it would make every build depend on that download. Opened at run time, it is an
// optional accelerator: absent, `analyze` uses the classical detector.
//
// The C API is one table of function pointers (OrtApi), which only ever grows at its end, so a
// function's slot number is fixed across versions. We declare the slots we call by number; the
// numbers come from the order of OrtApi in onnxruntime_c_api.h (API version 1 section). Every
// object we create is released on every path.
#include "pbonnx.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void OrtStatusPtr;  // opaque; NULL means success
typedef void *Handle;

// Slot numbers in OrtApi.
enum {
    SLOT_GET_ERROR_MESSAGE = 2,
    SLOT_CREATE_ENV = 3,
    SLOT_CREATE_SESSION = 7,
    SLOT_RUN = 9,
    SLOT_CREATE_SESSION_OPTIONS = 10,
    SLOT_DISABLE_MEM_PATTERN = 17,
    SLOT_SET_GRAPH_OPTIMIZATION_LEVEL = 23,
    SLOT_SET_INTRA_OP_THREADS = 24,
    SLOT_SET_INTER_OP_THREADS = 25,
    SLOT_SESSION_GET_INPUT_COUNT = 30,
    SLOT_SESSION_GET_OUTPUT_COUNT = 31,
    SLOT_SESSION_GET_INPUT_NAME = 36,
    SLOT_SESSION_GET_OUTPUT_NAME = 37,
    SLOT_CREATE_TENSOR_WITH_DATA = 49,
    SLOT_GET_TENSOR_MUTABLE_DATA = 51,
    SLOT_GET_DIMENSIONS_COUNT = 61,
    SLOT_GET_DIMENSIONS = 62,
    SLOT_GET_TENSOR_TYPE_AND_SHAPE = 65,
    SLOT_CREATE_CPU_MEMORY_INFO = 69,
    SLOT_ALLOCATOR_FREE = 76,
    SLOT_GET_DEFAULT_ALLOCATOR = 78,
    SLOT_RELEASE_ENV = 92,
    SLOT_RELEASE_STATUS = 93,
    SLOT_RELEASE_MEMORY_INFO = 94,
    SLOT_RELEASE_SESSION = 95,
    SLOT_RELEASE_VALUE = 96,
    SLOT_RELEASE_TENSOR_TYPE_AND_SHAPE = 99,
    SLOT_RELEASE_SESSION_OPTIONS = 100,
    SLOT_ADD_SESSION_CONFIG_ENTRY = 130,  // API version 4 (runtime 1.4) onward
};

enum { LOG_FATAL = 4, GRAPH_OPTIMIZE_ALL = 99, ALLOCATOR_ARENA = 1, MEM_DEFAULT = 0, ELEMENT_FLOAT = 1 };
// Every version since 1.0 answers GetApi(1) with the full table; asking for 1 keeps older runtimes usable.
enum { API_VERSION = 1 };

typedef struct {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} ApiBase;

struct pb_onnx_model {
    void *library;
    void *const *api;  // the OrtApi table, as slots
    const char *version;
    Handle env, options, session, memory;
    char *input_name, *output_name;
};

#define FN(model, slot, type) ((type)(model)->api[slot])

static void set_error(char *error, size_t size, const char *what, const char *detail) {
    if (error && size) snprintf(error, size, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

// Turns a status into the caller's message; non-zero when there was an error.
static int failed(pb_onnx_model *m, OrtStatusPtr *status, const char *what, char *error, size_t size) {
    if (!status) return 0;
    const char *message = FN(m, SLOT_GET_ERROR_MESSAGE, const char *(*)(const OrtStatusPtr *))(status);
    set_error(error, size, what, message);
    FN(m, SLOT_RELEASE_STATUS, void (*)(OrtStatusPtr *))(status);
    return 1;
}

static char *own_name(pb_onnx_model *m, int input, char *error, size_t size) {
    typedef OrtStatusPtr *(*NameFn)(Handle, size_t, Handle, char **);
    Handle allocator = NULL;
    if (failed(m, FN(m, SLOT_GET_DEFAULT_ALLOCATOR, OrtStatusPtr *(*)(Handle *))(&allocator), "allocator", error, size))
        return NULL;
    char *name = NULL;
    int slot = input ? SLOT_SESSION_GET_INPUT_NAME : SLOT_SESSION_GET_OUTPUT_NAME;
    if (failed(m, FN(m, slot, NameFn)(m->session, 0, allocator, &name), "model names", error, size)) return NULL;
    char *copy = strdup(name);
    OrtStatusPtr *s = FN(m, SLOT_ALLOCATOR_FREE, OrtStatusPtr *(*)(Handle, void *))(allocator, name);
    if (s) FN(m, SLOT_RELEASE_STATUS, void (*)(OrtStatusPtr *))(s);
    return copy;
}

void pb_onnx_close(pb_onnx_model *m) {
    if (!m) return;
    if (m->api) {
        if (m->session) FN(m, SLOT_RELEASE_SESSION, void (*)(Handle))(m->session);
        if (m->options) FN(m, SLOT_RELEASE_SESSION_OPTIONS, void (*)(Handle))(m->options);
        if (m->memory) FN(m, SLOT_RELEASE_MEMORY_INFO, void (*)(Handle))(m->memory);
        if (m->env) FN(m, SLOT_RELEASE_ENV, void (*)(Handle))(m->env);
    }
    free(m->input_name);
    free(m->output_name);
    // The library stays loaded: its thread pools may outlive the session by a moment, and
    // unloading code a thread still runs would crash. The process keeps one copy either way.
    free(m);
}

pb_onnx_model *pb_onnx_open(const char *library_path, const char *model_path, int threads, char *error,
                            size_t error_size) {
    pb_onnx_model *m = calloc(1, sizeof *m);
    if (!m) { set_error(error, error_size, "out of memory", NULL); return NULL; }
    m->library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (!m->library) { set_error(error, error_size, "cannot load ONNX Runtime", dlerror()); free(m); return NULL; }
    const ApiBase *(*get_base)(void) = (const ApiBase *(*)(void))dlsym(m->library, "OrtGetApiBase");
    const ApiBase *base = get_base ? get_base() : NULL;
    m->api = base ? (void *const *)base->GetApi(API_VERSION) : NULL;
    if (!m->api) { set_error(error, error_size, "not an ONNX Runtime library", library_path); free(m); return NULL; }
    m->version = base->GetVersionString();

    typedef OrtStatusPtr *(*OptFn)(Handle, int);
    if (failed(m, FN(m, SLOT_CREATE_ENV, OrtStatusPtr *(*)(int, const char *, Handle *))(LOG_FATAL, "picturebook", &m->env),
               "ONNX Runtime environment", error, error_size) ||
        failed(m, FN(m, SLOT_CREATE_SESSION_OPTIONS, OrtStatusPtr *(*)(Handle *))(&m->options), "session options", error,
               error_size) ||
        failed(m, FN(m, SLOT_SET_GRAPH_OPTIMIZATION_LEVEL, OptFn)(m->options, GRAPH_OPTIMIZE_ALL), "session options", error,
               error_size) ||
        failed(m, FN(m, SLOT_SET_INTRA_OP_THREADS, OptFn)(m->options, threads), "session options", error, error_size) ||
        failed(m, FN(m, SLOT_SET_INTER_OP_THREADS, OptFn)(m->options, 1), "session options", error, error_size) ||
        // The memory pattern records each input shape's allocation plan and keeps a block sized to
        // it; pages come in many sizes (and the reader's strips in many widths), so the blocks
        // pile up. Off, analyze of RealCorpus's 84 pages (42 sizes) peaked at 403 MiB instead of
        // 587, with the same boxes; through the Python API, 30 runs of mixed widths took the same
        // time either way (576 → 336 MiB).
        failed(m, FN(m, SLOT_DISABLE_MEM_PATTERN, OrtStatusPtr *(*)(Handle))(m->options), "session options", error,
               error_size) ||
        // The runtime's pool threads otherwise spin between operators waiting for work; one page
        // is in the model at a time (TextDetection serialises the runs), and a spinning thread
        // takes the core from the other page's own analysis: measured, it nearly doubled analyze's CPU.
        failed(m, FN(m, SLOT_ADD_SESSION_CONFIG_ENTRY, OrtStatusPtr *(*)(Handle, const char *, const char *))(
                      m->options, "session.intra_op.allow_spinning", "0"),
               "session options", error, error_size) ||
        failed(m, FN(m, SLOT_CREATE_SESSION, OrtStatusPtr *(*)(Handle, const char *, Handle, Handle *))(m->env, model_path,
                                                                                                       m->options, &m->session),
               "cannot load the model", error, error_size) ||
        failed(m, FN(m, SLOT_CREATE_CPU_MEMORY_INFO, OrtStatusPtr *(*)(int, int, Handle *))(ALLOCATOR_ARENA, MEM_DEFAULT, &m->memory),
               "memory info", error, error_size)) {
        pb_onnx_close(m);
        return NULL;
    }
    size_t inputs = 0, outputs = 0;
    typedef OrtStatusPtr *(*CountFn)(Handle, size_t *);
    if (failed(m, FN(m, SLOT_SESSION_GET_INPUT_COUNT, CountFn)(m->session, &inputs), "model inputs", error, error_size) ||
        failed(m, FN(m, SLOT_SESSION_GET_OUTPUT_COUNT, CountFn)(m->session, &outputs), "model outputs", error, error_size)) {
        pb_onnx_close(m);
        return NULL;
    }
    if (inputs != 1 || outputs < 1) {
        set_error(error, error_size, "the model must have one input and an output", model_path);
        pb_onnx_close(m);
        return NULL;
    }
    m->input_name = own_name(m, 1, error, error_size);
    m->output_name = m->input_name ? own_name(m, 0, error, error_size) : NULL;
    if (!m->output_name) { pb_onnx_close(m); return NULL; }
    return m;
}

const char *pb_onnx_version(const pb_onnx_model *m) { return m && m->version ? m->version : ""; }

void pb_onnx_free(float *buffer) { free(buffer); }

int pb_onnx_run(pb_onnx_model *m, const float *input, const int64_t *shape, size_t rank, float **output,
                int64_t *out_shape, size_t out_capacity, size_t *out_rank, char *error, size_t error_size) {
    *output = NULL;
    *out_rank = 0;
    size_t count = 1;
    for (size_t i = 0; i < rank; i++) count *= (size_t)shape[i];
    Handle in = NULL, out = NULL, info = NULL;
    typedef OrtStatusPtr *(*TensorFn)(Handle, void *, size_t, const int64_t *, size_t, int, Handle *);
    if (failed(m, FN(m, SLOT_CREATE_TENSOR_WITH_DATA, TensorFn)(m->memory, (void *)input, count * sizeof(float), shape, rank,
                                                                ELEMENT_FLOAT, &in),
               "input tensor", error, error_size))
        return 1;
    const char *in_names[1] = {m->input_name};
    const char *out_names[1] = {m->output_name};
    typedef OrtStatusPtr *(*RunFn)(Handle, Handle, const char *const *, const Handle *, size_t, const char *const *, size_t,
                                   Handle *);
    int status = 1;
    if (failed(m, FN(m, SLOT_RUN, RunFn)(m->session, NULL, in_names, (const Handle *)&in, 1, out_names, 1, &out),
               "running the model", error, error_size))
        goto done;
    if (failed(m, FN(m, SLOT_GET_TENSOR_TYPE_AND_SHAPE, OrtStatusPtr *(*)(Handle, Handle *))(out, &info), "output shape",
               error, error_size))
        goto done;
    size_t n = 0;
    if (failed(m, FN(m, SLOT_GET_DIMENSIONS_COUNT, OrtStatusPtr *(*)(Handle, size_t *))(info, &n), "output shape", error,
               error_size))
        goto done;
    if (n > out_capacity) { set_error(error, error_size, "the model's output has too many dimensions", NULL); goto done; }
    if (failed(m, FN(m, SLOT_GET_DIMENSIONS, OrtStatusPtr *(*)(Handle, int64_t *, size_t))(info, out_shape, n), "output shape",
               error, error_size))
        goto done;
    size_t total = 1;
    for (size_t i = 0; i < n; i++) {
        if (out_shape[i] < 0) { set_error(error, error_size, "the model's output has an unknown size", NULL); goto done; }
        total *= (size_t)out_shape[i];
    }
    float *data = NULL;
    if (failed(m, FN(m, SLOT_GET_TENSOR_MUTABLE_DATA, OrtStatusPtr *(*)(Handle, void **))(out, (void **)&data), "output data",
               error, error_size))
        goto done;
    *output = malloc(total ? total * sizeof(float) : 1);
    if (!*output) { set_error(error, error_size, "out of memory", NULL); goto done; }
    memcpy(*output, data, total * sizeof(float));
    *out_rank = n;
    status = 0;
done:
    if (info) FN(m, SLOT_RELEASE_TENSOR_TYPE_AND_SHAPE, void (*)(Handle))(info);
    if (out) FN(m, SLOT_RELEASE_VALUE, void (*)(Handle))(out);
    if (in) FN(m, SLOT_RELEASE_VALUE, void (*)(Handle))(in);
    return status;
}

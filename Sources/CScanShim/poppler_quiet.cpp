// Keeps Poppler's parser messages ("Syntax Error: ...") off stderr.
//
// Poppler's core reports damage through one process-wide callback, set with setErrorCallback; the
// GLib API neither sets it nor exposes it, so without this every broken PDF would print. The
// function is C++ (libpoppler's, declared here as poppler 22's Error.h declares it, because the
// core's headers are not packaged with the GLib ones). The callback has no user data, so the
// message goes to a per-thread slot that pdf.c reads after a failure.

#include <cstdio>
#include <cstring>
#include <mutex>

enum ErrorCategory { errSyntaxWarning, errSyntaxError, errConfig, errCommandLine, errIO, errNotAllowed, errUnimplemented, errInternal };
using ErrorCallback = void (*)(ErrorCategory category, long long pos, const char *msg);
void setErrorCallback(ErrorCallback cbk);

static thread_local char last_message[512];

static void record(ErrorCategory category, long long pos, const char *msg) {
    (void)pos;
    // Warnings are damage Poppler works around; keep the first real error of the call.
    if (category == errSyntaxWarning || last_message[0]) return;
    std::snprintf(last_message, sizeof last_message, "%s", msg ? msg : "");
}

extern "C" void pbs_poppler_quiet(void) {
    static std::once_flag once;
    std::call_once(once, [] { setErrorCallback(record); });
}

extern "C" const char *pbs_poppler_last_message(void) { return last_message; }
extern "C" void pbs_poppler_clear_message(void) { last_message[0] = 0; }

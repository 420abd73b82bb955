// Only CScanShim includes this; Swift never sees a GLib or cairo type.
#include <poppler.h>
#include <cairo.h>

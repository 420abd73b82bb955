// Tesseract's C API (tessapi). Only the OCR module imports this, internally: no Tesseract type
// leaves it. The C API is used rather than the C++ one because Swift's C++ interop would pull
// Tesseract's templates into every build of the module.
#include <tesseract/capi.h>

#include "pbshim.h"

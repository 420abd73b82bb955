// The C that Swift cannot do safely. See shim.c.
#pragma once

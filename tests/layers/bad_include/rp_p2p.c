/* includes_check's own test (never compiled): a point-to-point file that
 * includes the engine's header, a layer above it. */
#include "rp_engine.h"

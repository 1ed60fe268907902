/* lib/internal.h - what every file of libmemphis includes: the visibility of its internal
 * symbols. Nothing here is public API; each noun has its own header (one per .c, or code.h /
 * backend/backend.h for a noun in several files). How the files stand on each other, where
 * the state lives and the order of the locks: docs/architecture.md, "lib/" (one map, kept
 * with the code that tests/shape/t_layers.sh checks).
 */
#ifndef MEMPHIS_INTERNAL_H
#define MEMPHIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define MEMPHIS__HIDDEN __attribute__((visibility("hidden")))

#endif /* MEMPHIS_INTERNAL_H */

/* lib/backend/names.h - the one list of sample sources. select.c builds its table from it
 * (in this order MEMPHIS_BACKEND=auto tries them: the hardware first, whose samples carry
 * exact addresses, data sources and latencies; then the module; then the software
 * sampler), and every text that names the choices (select.c's error, the launcher's
 * --help) uses MEMPHIS__BACKEND_CHOICES. A new source is one file in lib/backend/ and one
 * X() here. */
#ifndef MEMPHIS_BACKEND_NAMES_H
#define MEMPHIS_BACKEND_NAMES_H

#define MEMPHIS__BACKENDS(X) X(ibs) X(pebs) X(kmod) X(soft)

#define MEMPHIS__BACKEND_NAME_(name) ", " #name
/* "auto, ibs, pebs, kmod, soft or none": every value MEMPHIS_BACKEND accepts */
#define MEMPHIS__BACKEND_CHOICES "auto" MEMPHIS__BACKENDS(MEMPHIS__BACKEND_NAME_) " or none"

#endif /* MEMPHIS_BACKEND_NAMES_H */

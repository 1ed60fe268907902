/* lib/backend/names.h - the one list of sample sources. select.c builds its table from it
 * (in this order MEMPHIS_BACKEND=auto tries them), and every text that names the choices
 * (select.c's error, the launcher's --help) uses MEMPHIS__BACKEND_CHOICES. A new source
 * (ibs, pebs) is one file in lib/backend/ and one X() here. */
#ifndef MEMPHIS_BACKEND_NAMES_H
#define MEMPHIS_BACKEND_NAMES_H

#define MEMPHIS__BACKENDS(X) X(soft) X(kmod)

#define MEMPHIS__BACKEND_NAME_(name) ", " #name
/* "auto, soft, kmod or none": every value MEMPHIS_BACKEND accepts */
#define MEMPHIS__BACKEND_CHOICES "auto" MEMPHIS__BACKENDS(MEMPHIS__BACKEND_NAME_) " or none"

#endif /* MEMPHIS_BACKEND_NAMES_H */

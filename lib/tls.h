/* lib/tls.h - static thread-local storage of the loaded modules. Below it: writer, self. */
#ifndef MEMPHIS_TLS_H
#define MEMPHIS_TLS_H

#include <stddef.h>
#include <stdint.h>

/* Write a TLS block: each loaded module's static TLS offset from fs_base and size. */
void memphis__tls_write(void);
/* Bytes of static TLS every thread carries (upper bound), 0 if none. */
uint64_t memphis__tls_static_size(void);
/* The stack size for a thread of the library: the default, at least 1 MiB, plus the static
 * TLS that glibc takes out of it. */
size_t memphis__tls_thread_stack(void);

#endif /* MEMPHIS_TLS_H */

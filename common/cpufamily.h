/* common/cpufamily.h - the x86 CPU's family and model from CPUID leaf 1, for the code that
 * knows a model's quirks (the IBS decoder's bits, PEXT's speed). */
#ifndef MPH_CPUFAMILY_H
#define MPH_CPUFAMILY_H

#include <cpuid.h>

/* The family and model, with the extended fields added as AMD and Intel define them for
 * family 0xf; 0, 0 when CPUID has no leaf 1. */
static inline void mph_cpu_family_model(unsigned *family, unsigned *model)
{
	unsigned a, b, c, d;

	*family = *model = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	*family = (a >> 8) & 0xf;
	if (*family == 0xf)
		*family += (a >> 20) & 0xff;
	*model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
}

#endif /* MPH_CPUFAMILY_H */

// SPDX-License-Identifier: MIT
/* rg_safe_name(): an untrusted name as one safe file name (the rule is in rg/safe_name.h). */
#include <string.h>

#include "rg/safe_name.h"

static int safe_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

char *rg_safe_name(char out[RG_SAFE_NAME_MAX + 1], const char *name, const char *fallback)
{
	size_t n = 0;

	for (; name && name[n] && n < RG_SAFE_NAME_MAX; n++)
		out[n] = safe_byte((unsigned char)name[n]) ? name[n] : '_';
	out[n] = '\0';
	if (!n)
		return rg_safe_name(out, fallback && *fallback ? fallback : "_", NULL);
	if (out[0] == '.')
		out[0] = '_';
	return out;
}

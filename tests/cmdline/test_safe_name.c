// SPDX-License-Identifier: MIT
/* Unit test of rg_safe_name(): hostile names (paths, controls, dots only, long, empty) each as one safe file name. */
#include <string.h>

#include "check.h"
#include "rg/safe_name.h"

/* Safe as one file name: 1..RG_SAFE_NAME_MAX bytes of [A-Za-z0-9._-], no leading '.'. */
static int is_safe(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= RG_SAFE_NAME_MAX && s[0] != '.' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

int main(void)
{
	static const struct { const char *in, *fallback, *want; } cases[] = {
		{ "rgfleet-a", NULL, "rgfleet-a" },		/* a plain name stays */
		{ "v2.lab_3", NULL, "v2.lab_3" },
		{ "x/../../y", NULL, "x_.._.._y" },		/* issue 36 item 1 */
		{ "a\tb", NULL, "a_b" },			/* item 2 */
		{ "a\nrgbench fleet: b: ok", NULL, "a_rgbench_fleet__b__ok" },
		{ "...", NULL, "_.." },
		{ "..", NULL, "_." },
		{ ".", NULL, "_" },
		{ ".hidden", NULL, "_hidden" },
		{ "x/", NULL, "x_" },				/* a slash at the end */
		{ "/", NULL, "_" },
		{ "\x1b[31mred", NULL, "__31mred" },		/* an escape sequence */
		{ "z\xc3\xbcrich", NULL, "z__rich" },		/* each byte of a non-ASCII letter */
		{ "", "host", "host" },				/* empty: the fallback */
		{ NULL, "host", "host" },
		{ "", NULL, "_" },
	};
	char out[RG_SAFE_NAME_MAX + 1], longname[300];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		rg_safe_name(out, cases[i].in, cases[i].fallback);
		CHECK(!strcmp(out, cases[i].want), "case %zu: got '%s', want '%s'", i, out, cases[i].want);
		CHECK(is_safe(out), "case %zu: '%s' is not safe", i, out);
	}
	/* A long name is cut at RG_SAFE_NAME_MAX bytes; a dot there stays (not leading). */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	longname[RG_SAFE_NAME_MAX - 1] = '/';
	rg_safe_name(out, longname, NULL);
	CHECK(strlen(out) == RG_SAFE_NAME_MAX && out[RG_SAFE_NAME_MAX - 1] == '_' && is_safe(out),
	      "a 299-byte name: '%s' (%zu bytes)", out, strlen(out));
	/* Every single byte 1..255 alone and after a dot: safe. */
	for (int c = 1; c < 256; c++) {
		char one[3] = { (char)c, 0, 0 }, two[3] = { '.', (char)c, 0 };

		CHECK(is_safe(rg_safe_name(out, one, NULL)), "byte 0x%02x: '%s'", c, out);
		CHECK(is_safe(rg_safe_name(out, two, NULL)), "'.' 0x%02x: '%s'", c, out);
		CHECK(strcmp(out, ".") && strcmp(out, ".."), "'.' 0x%02x: '%s'", c, out);
	}
	return rg_test_done("test_safe_name");
}

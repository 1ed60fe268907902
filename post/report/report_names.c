/* post/report/report_names.c - the names every form of the report gives variables, lines
 * and nodes: below the text, its data-source tables, the JSON and the exports. */
#include <stdio.h>

#include "report_impl.h"

const char *report_key_name(const void *arg, int is_var, uint32_t id)
{
	const struct report *r = arg;

	return is_var ? mr_attrib_var(r->a, id)->name : mr_attrib_line(r->a, id);
}

void report_node_label(const struct report *r, uint32_t node, char *buf, size_t len)
{
	const char *suffix = r->no_remote ? " (local)" : "";

	if (node == r->nnodes)
		snprintf(buf, len, "Node?%s", suffix);
	else
		snprintf(buf, len, "Node%u%s", node, suffix);
}

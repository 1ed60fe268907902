/* post/report/report_nodes.c - the nodes' kinds and memory tiers (RUN keys "node", lib/topology.c,
 * docs/format.md): a node without CPUs (CXL memory, HBM in flat mode, a GPU's memory) and
 * the kernel's tiers, HMAT figures and memory at start, in the header and as JSON
 * run.nodes (the tier advice: report_tiers.c). Shown only when a node has no CPU or the
 * nodes are not all of one tier: the report of a machine of sockets alone is as it was. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "report_impl.h"

static const char *const fields[9] = { "node", "cpus", "tier", "read_latency_ns",
				       "write_latency_ns", "read_bandwidth_mbs",
				       "write_bandwidth_mbs", "bytes", "free_bytes" };

size_t report_node_infos(const struct report *r, struct report_node_info **out)
{
	size_t n = 0;

	*out = calloc(r->nnodes + 1, sizeof(**out));
	for (uint32_t i = 0; *out && i < r->nnodes; i++)
		(*out)[i].v[0] = -1; /* not seen yet */
	for (size_t i = 0; *out && i < r->run->nkv; i++) {
		const char *p = r->run->kv[i].value;
		struct report_node_info ni;
		size_t k = 0;

		if (strcmp(r->run->kv[i].key, "node"))
			continue;
		for (; k < 9 && *p; k++) {
			char *end;

			ni.v[k] = *p == '-' && (p[1] == '\t' || !p[1]) ? -1 : strtoll(p, &end, 10);
			p = strchr(p, '\t');
			if (!p)
				break;
			p++;
		}
		if (k >= 8 && ni.v[0] >= 0 && (uint64_t)ni.v[0] < r->nnodes) {
			n += (*out)[ni.v[0]].v[0] < 0;
			(*out)[ni.v[0]] = ni;
		}
	}
	return n == r->nnodes ? n : 0;
}

bool report_nodes_worth(const struct report_node_info *ni, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ni[i].v[1] == 0 || ni[i].v[2] != ni[0].v[2])
			return true;
	return false;
}

static void gib(FILE *f, long long bytes)
{
	fprintf(f, "%.1f GiB", (double)bytes / (1 << 30));
}

void report_nodes_text(const struct report *r, FILE *f)
{
	struct report_node_info *ni;
	size_t n = report_node_infos(r, &ni);

	if (n && report_nodes_worth(ni, n)) {
		fprintf(f, "node kinds:");
		for (size_t i = 0; i < n; i++) {
			const long long *v = ni[i].v;

			fprintf(f, "%s node %zu: ", i ? ";" : "", i);
			if (v[1] > 0)
				fprintf(f, "%lld CPU%s", v[1], v[1] == 1 ? "" : "s");
			else
				fprintf(f, "no CPU (memory only: a far tier)");
			if (v[2] >= 0)
				fprintf(f, ", memory tier %lld", v[2]);
			if (v[3] >= 0 || v[5] >= 0)
				fprintf(f, ", HMAT from its nearest CPUs: read %lld ns, %lld MB/s; write "
					"%lld ns, %lld MB/s", v[3], v[5], v[4], v[6]);
			if (v[7] >= 0) {
				fprintf(f, ", ");
				gib(f, v[7]);
				if (v[8] >= 0) {
					fprintf(f, " (");
					gib(f, v[8]);
					fprintf(f, " free at start)");
				}
			}
		}
		fprintf(f, "\n");
	}
	free(ni);
}

void report_nodes_json(struct mr_json *j, const struct report *r)
{
	struct report_node_info *ni;
	size_t n = report_node_infos(r, &ni);

	if (n && report_nodes_worth(ni, n)) {
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		for (size_t i = 0; i < n; i++) {
			mr_json_obj(j);
			for (int k = 0; k < 9; k++) {
				mr_json_key(j, fields[k]);
				if (ni[i].v[k] < 0)
					mr_json_null(j);
				else
					mr_json_u64(j, (uint64_t)ni[i].v[k]);
			}
			mr_json_obj_end(j);
		}
		mr_json_arr_end(j);
	}
	free(ni);
}

bool report_far_nodes(struct report *r)
{
	if (!r->run->have_topology || r->nnodes < 2)
		return true;
	r->far = malloc(r->nnodes);
	if (!r->far)
		return false;
	memset(r->far, 1, r->nnodes);
	for (uint32_t c = 0; c < r->run->ncpus; c++)
		if (r->cpu_node[c] < r->nnodes)
			r->far[r->cpu_node[c]] = 0;
	for (uint32_t n = 0; n < r->nnodes; n++)
		r->nfar += r->far[n];
	if (r->nfar == r->nnodes) /* no CPU known on any: none is far */
		r->nfar = 0;
	r->agg.far = r->nfar ? r->far : NULL;
	return true;
}

/* lib/backend/hwset.c - sysfs PMU descriptions, per-thread event sets and the reasons for
 * refusals, shared by the hardware backends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fd.h"
#include "hwset.h"
#include "log.h"

/* Read the first line of SYSFS/bus/event_source/devices/PMU/REL into buf. 0 or -errno. */
static int pmu_read(const char *sysfs, const char *pmu, const char *rel, char *buf, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/%s", sysfs, pmu, rel);
	f = memphis__fopen(path);
	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int memphis__pmu_type(const char *sysfs, const char *pmu)
{
	char buf[32], *end;
	long v;
	int err = pmu_read(sysfs, pmu, "type", buf, sizeof(buf));

	if (err < 0)
		return err;
	v = strtol(buf, &end, 10);
	if (end == buf || v < 0 || v > 0x7fffffff)
		return -EINVAL;
	return (int)v;
}

int memphis__pmu_has(const char *sysfs, const char *pmu, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/%s", sysfs, pmu, rel);
	return access(path, F_OK) == 0;
}

int memphis__pmu_term_parse(const char *s, struct memphis__pmu_term *t)
{
	static const char *const fields[] = { "config", "config1", "config2" };
	size_t k = strcspn(s, ":");

	t->field = -1;
	t->mask = 0;
	for (int i = 0; i < 3; i++)
		if (strlen(fields[i]) == k && !strncmp(s, fields[i], k))
			t->field = i;
	if (t->field < 0 || s[k] != ':')
		return -EINVAL;
	s += k + 1;
	for (;;) { /* "lo", "lo-hi", separated by commas */
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				return -EINVAL;
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++)
			t->mask |= 1ull << b;
		if (*end != ',')
			return *end ? -EINVAL : 0;
		s = end + 1;
	}
}

int memphis__pmu_term(const char *sysfs, const char *pmu, const char *name,
		      struct memphis__pmu_term *t)
{
	char rel[128], buf[128];
	int err;

	snprintf(rel, sizeof(rel), "format/%s", name);
	if ((err = pmu_read(sysfs, pmu, rel, buf, sizeof(buf))) < 0)
		return err;
	return memphis__pmu_term_parse(buf, t);
}

int memphis__pmu_term_set(struct perf_event_attr *a, const struct memphis__pmu_term *t,
			  uint64_t value)
{
	__u64 *f = t->field == 0 ? &a->config : t->field == 1 ? &a->config1 : &a->config2;
	uint64_t out = 0, v = value;

	for (unsigned b = 0; b < 64; b++) {
		if (!(t->mask >> b & 1))
			continue;
		out |= (v & 1) << b;
		v >>= 1;
	}
	if (v)
		return -ERANGE;
	*f = (*f & ~t->mask) | out;
	return 0;
}

int memphis__pmu_set(const char *sysfs, const char *pmu, const char *name,
		     struct perf_event_attr *a, uint64_t value)
{
	struct memphis__pmu_term t;
	int err = memphis__pmu_term(sysfs, pmu, name, &t);

	return err < 0 ? err : memphis__pmu_term_set(a, &t, value);
}

int memphis__pmu_alias(const char *sysfs, const char *pmu, const char *name,
		       struct perf_event_attr *a)
{
	char rel[128], buf[256], *save = NULL;
	int type = memphis__pmu_type(sysfs, pmu), err;

	if (type < 0)
		return type;
	snprintf(rel, sizeof(rel), "events/%s", name);
	if ((err = pmu_read(sysfs, pmu, rel, buf, sizeof(buf))) < 0)
		return err;
	a->type = (uint32_t)type;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		uint64_t v = 1; /* a bare term is a flag */
		if (eq) {
			*eq = 0;
			v = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end)
				return -EINVAL;
		}
		if ((err = memphis__pmu_set(sysfs, pmu, tok, a, v)) < 0)
			return err;
	}
	return 0;
}

/* ---- event sets ---- */

int memphis__hw_set_open(struct memphis__hw_set *s, struct memphis__ring *r,
			 const struct memphis__hw_plan *p, pid_t tid, int cpu, unsigned data_pages,
			 int *failed)
{
	int first_err = 0;

	memset(s, 0, sizeof(*s));
	s->n = p->n;
	s->ring = -1;
	*failed = -1;
	for (unsigned i = 0; i < p->n; i++)
		s->fd[i] = -1;
	for (unsigned i = 0; i < p->n; i++) {
		struct perf_event_attr a = p->ev[i].attr;
		int leader = p->ev[i].leader, err;
		int group = leader >= 0 ? s->fd[leader] : -1;

		s->kind[i] = p->ev[i].kind;
		if (leader >= 0 && group < 0)
			continue; /* its leader was refused */
		a.disabled = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (p->ev[i].kind != MEMPHIS__HW_COUNT && s->ring < 0) {
			a.watermark = 1;
			/* a thread's ring: its PERF_RECORD_FORKs (memphis__thread_fork_record) */
			a.task = tid >= 0;
			err = memphis__ring_open_on(r, &a, tid, cpu, group, data_pages, 2);
			if (err == 0) {
				s->fd[i] = r->fd;
				s->fid[i] = r->fid;
				s->id[i] = r->id;
				s->ring = (int)i;
				continue;
			}
		} else {
			int fd = memphis__perf_take(&a, tid, cpu, group, &s->fid[i]);
			err = fd;
			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &s->id[i]) < 0)
				err = -errno;
			else if (fd >= 0 && p->ev[i].kind != MEMPHIS__HW_COUNT &&
				 ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
				err = -errno;
			if (err >= 0) {
				s->fd[i] = fd;
				continue;
			}
			memphis__fd_close(&fd, &s->fid[i]);
		}
		memphis__log(MPH_LOG_INFO, "%s for %s %d: %s", p->ev[i].name, tid >= 0 ? "thread" : "cpu",
			     tid >= 0 ? (int)tid : cpu, strerror(-err));
		if (!first_err) {
			first_err = err;
			*failed = (int)i;
		}
	}
	if (s->ring >= 0)
		return 0;
	memphis__hw_set_close(s, r);
	return first_err ? first_err : -EINVAL;
}

int memphis__hw_set_enable(struct memphis__hw_set *s, struct memphis__ring *r, int on)
{
	int ret = 0;

	for (unsigned i = 0; i < s->n; i++) {
		if ((int)i == s->ring) {
			int err = memphis__ring_enable(r, on);
			if (err == -EBADF)
				s->fd[i] = -1;
			if (err && !ret)
				ret = err;
			continue;
		}
		if (s->fd[i] < 0)
			continue;
		if (!memphis__fd_ours(&s->fd[i], &s->fid[i], NULL)) {
			if (!ret)
				ret = -EBADF;
			continue;
		}
		if (ioctl(s->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0 && !ret)
			ret = -errno;
	}
	return ret;
}

void memphis__hw_set_times(struct memphis__hw_set *s, struct memphis__ring *r,
			   uint64_t *enabled, uint64_t *running)
{
	for (unsigned i = 0; i < s->n; i++) {
		uint64_t v[3]; /* value, time_enabled, time_running */
		int fd;

		if (s->kind[i] == MEMPHIS__HW_COUNT)
			continue;
		if ((int)i == s->ring) {
			if (!memphis__ring_check(r))
				continue;
			fd = r->fd;
		} else if (s->fd[i] < 0 || !memphis__fd_ours(&s->fd[i], &s->fid[i], NULL)) {
			continue;
		} else {
			fd = s->fd[i];
		}
		if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v) || v[1] < s->t_enabled[i] ||
		    v[2] < s->t_running[i])
			continue;
		enabled[i] += v[1] - s->t_enabled[i];
		running[i] += v[2] - s->t_running[i];
		s->t_enabled[i] = v[1];
		s->t_running[i] = v[2];
	}
}

void memphis__hw_times_add(struct memphis__hw_times *t, struct memphis__hw_set *s,
			   struct memphis__ring *r)
{
	uint64_t en[MEMPHIS__HW_MAX] = { 0 }, run[MEMPHIS__HW_MAX] = { 0 };

	memphis__hw_set_times(s, r, en, run);
	for (unsigned i = 0; i < s->n; i++) {
		__atomic_fetch_add(&t->enabled[i], en[i], __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->running[i], run[i], __ATOMIC_RELAXED);
	}
}

size_t memphis__hw_times_take(struct memphis__hw_times *t, const struct memphis__hw_plan *p,
			      struct memphis__hw_coverage *c, size_t n)
{
	size_t k = 0;

	for (unsigned i = 0; i < p->n; i++) {
		uint64_t en = __atomic_exchange_n(&t->enabled[i], 0, __ATOMIC_RELAXED);
		uint64_t run = __atomic_exchange_n(&t->running[i], 0, __ATOMIC_RELAXED);

		if (!en || k == n)
			continue;
		snprintf(c[k].name, sizeof(c[k].name), "%s", p->ev[i].name);
		c[k].enabled_ns = en;
		c[k].running_ns = run;
		k++;
	}
	return k;
}

unsigned memphis__hw_set_kind(const struct memphis__hw_set *s, uint64_t id)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->id[i] == id && s->kind[i] != MEMPHIS__HW_COUNT)
			return s->kind[i];
	return MEMPHIS__HW_ANY;
}

void memphis__hw_set_close(struct memphis__hw_set *s, struct memphis__ring *r)
{
	/* members before their leaders, the ring's event last (its mapping goes with it) */
	for (unsigned i = s->n; i-- > 0;)
		if ((int)i != s->ring)
			memphis__fd_close(&s->fd[i], &s->fid[i]);
	if (s->ring >= 0 || r->base)
		memphis__ring_close(r);
	s->ring = -1;
	s->n = 0;
}

/* ---- why ---- */

void memphis__hw_plan_describe(const struct memphis__hw_plan *p, char *buf, size_t n,
			       uint64_t *period)
{
	size_t k = 0;

	*period = 0;
	if (n)
		buf[0] = 0;
	for (unsigned i = 0; i < p->n && k < n; i++) {
		const struct perf_event_attr *a = &p->ev[i].attr;
		int w = snprintf(buf + k, n - k, "%s%s type=%u config=%#llx config1=%#llx "
				 "precise_ip=%u period=%llu", i ? "; " : "", p->ev[i].name, a->type,
				 (unsigned long long)a->config, (unsigned long long)a->config1,
				 (unsigned)a->precise_ip, (unsigned long long)a->sample_period);
		if (w < 0)
			break;
		k += (size_t)w;
		if (!*period && p->ev[i].kind != MEMPHIS__HW_COUNT)
			*period = a->sample_period;
	}
}

int memphis__paranoid(void)
{
	FILE *f = memphis__fopen("/proc/sys/kernel/perf_event_paranoid");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

void memphis__hw_why(int err, const char *backend, const char *event, int paranoid,
		     unsigned what, char *why, size_t n)
{
	switch (-err) {
	case ENOENT:
		snprintf(why, n, "%s: no PMU for %s (ENOENT: the kernel has no such hardware event "
			 "here); use MEMPHIS_BACKEND=soft or kmod", backend, event);
		break;
	case EOPNOTSUPP:
		snprintf(why, n, "%s: the kernel cannot sample %s (EOPNOTSUPP: a virtual machine "
			 "without PMU passthrough?); enable the guest's vPMU (KVM: -cpu host,pmu=on) "
			 "or run on the host", backend, event);
		break;
	case EACCES:
	case EPERM:
		if (what & MEMPHIS__HW_WHY_PHYS)
			snprintf(why, n, "%s: %s with physical addresses refused (%s): PERF_SAMPLE_PHYS_ADDR "
				 "needs CAP_PERFMON or kernel.perf_event_paranoid<=1; grant it or sample "
				 "without physical addresses", backend, event, err == -EACCES ? "EACCES" : "EPERM");
		else if (paranoid > 2)
			snprintf(why, n, "%s: %s refused (%s): kernel.perf_event_paranoid=%d forbids "
				 "perf_event_open; as root 'sysctl kernel.perf_event_paranoid=%d' or "
				 "grant CAP_PERFMON", backend, event, err == -EACCES ? "EACCES" : "EPERM",
				 paranoid, (what & MEMPHIS__HW_WHY_CPU) ? 0 : (what & MEMPHIS__HW_WHY_KERNEL) ? 1 : 2);
		else if (what & (MEMPHIS__HW_WHY_KERNEL | MEMPHIS__HW_WHY_CPU))
			snprintf(why, n, "%s: %s refused (%s): kernel.perf_event_paranoid=%d, and %s; as "
				 "root 'sysctl kernel.perf_event_paranoid=%d' or grant CAP_PERFMON",
				 backend, event, err == -EACCES ? "EACCES" : "EPERM", paranoid,
				 (what & MEMPHIS__HW_WHY_CPU) ? "sampling per CPU needs <=0"
							      : "an event that cannot exclude the kernel needs <=1",
				 (what & MEMPHIS__HW_WHY_CPU) ? 0 : 1);
		else
			snprintf(why, n, "%s: %s refused (%s) although kernel.perf_event_paranoid=%d: a "
				 "seccomp filter or an LSM forbids perf_event_open; allow it (e.g. docker "
				 "--security-opt seccomp=unconfined)", backend, event,
				 err == -EACCES ? "EACCES" : "EPERM", paranoid);
		break;
	case ENOSPC: /* not IBS: its one user per CPU is refused at schedule-in, not at open
		      * (perf_ibs_add()); the run's coverage tells that sharing */
		snprintf(why, n, "%s: %s is in use by another tool (ENOSPC: the PMU's counters are "
			 "taken, e.g. by perf record/perf mem, numatop or another memphis); stop it, "
			 "or use MEMPHIS_BACKEND=soft", backend, event);
		break;
	case ENODATA:
		snprintf(why, n, "%s: %s needs the mem-loads-aux event as its group leader (ENODATA: "
			 "Sapphire Rapids and hybrid P-cores) and sysfs does not offer it; use a newer "
			 "kernel, or MEMPHIS_EVENT without load latency (e.g. MEM_INST_RETIRED:ALL_STORES)",
			 backend, event);
		break;
	case EINVAL:
		snprintf(why, n, "%s: the kernel rejected %s (EINVAL: an attribute it does not accept "
			 "here); check MEMPHIS_EVENT, MEMPHIS_HW_PERIOD and MEMPHIS_LDLAT", backend, event);
		break;
	case ENOSYS:
		snprintf(why, n, "%s: perf_event_open not available (ENOSYS: kernel without "
			 "CONFIG_PERF_EVENTS or syscall filtered)", backend);
		break;
	default:
		snprintf(why, n, "%s: %s: perf_event_open failed: %s", backend, event, strerror(-err));
		break;
	}
}

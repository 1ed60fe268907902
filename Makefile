# memphis - plain make. `make demo` and `make check` do everything on a fresh Debian 12.
#   make            build library, launcher, memphis-report, examples, test programs
#   make demo       install missing packages, build, profile examples/cg, print the report
#   make check      the test suite (TAP, ends with the skipped tests and their reasons, then
#                   "N passed, N failed, N skipped"; MEMPHIS_STRICT_SKIPS=1: see tests/run.sh)
#   make check-deps what the tests alone need (chromium, node, puppeteer-core into build/npm)
#   make bench      overhead and throughput figures (prints, asserts nothing; docs/bench.md);
#                   BENCH_QUICK=1 a ~2 minute subset
#   make fuzz       build the libFuzzer targets (tests/fuzz/fuzz_*.c) into build-fuzz/ with
#                   clang; FUZZ_SECONDS=N runs each for N seconds, FUZZ_RUNS=N for N
#                   executions, FUZZ_ONLY=REGEX only the targets whose name matches
#   make programs  only what `make install` installs (library, tools, Fortran binding)
#   make install / uninstall   PREFIX=/usr/local DESTDIR=
#   make install-dkms / uninstall-dkms   the kernel module's source for DKMS (DESTDIR=)
# V=1 shows the commands. User CFLAGS/LDFLAGS are appended to ours.

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
BINDIR ?= $(PREFIX)/bin
INCDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
# memphis-report --html reads its page template, style and script from DATADIR/memphis/html
DATADIR ?= $(PREFIX)/share
CC ?= cc
# Fortran: gfortran unless FC is given (make's built-in default f77 is not it)
ifeq ($(origin FC),default)
FC := gfortran
endif
# where `make install` puts memphis.mod (gfortran-version specific, so not in INCDIR itself)
FMODDIR ?= $(INCDIR)/memphis/fortran
# FORTRAN=0: `make programs` and `make install` leave the Fortran binding out (no gfortran
# needed; memphis.pc then has no Fortran variables). The Spack recipe's ~fortran.
FORTRAN ?= 1
B := build

# The version: VERSION is the one place it is set (docs/abi.md). include/memphis.h carries it
# as MEMPHIS_VERSION_MAJOR/MINOR/PATCH for programs (and memphis_version(), the tools'
# --version); the build stops when the two disagree, so a bump cannot forget the header.
VERSION := $(shell cat VERSION)
HDR_VERSION := $(shell sed -n 's/^\#define MEMPHIS_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' include/memphis.h | paste -sd.)
ifneq ($(VERSION),$(HDR_VERSION))
$(error VERSION says $(VERSION) but include/memphis.h says $(HDR_VERSION): set MEMPHIS_VERSION_* there to match)
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -Iinclude -MMD -MP
LIB_CFLAGS := $(BASE_CFLAGS) -Ilib -Icommon -fPIC -fvisibility=hidden -pthread $(CFLAGS)
# where libdwarf.h is: Debian's place; a libdwarf elsewhere (Spack's recipe) names its own
DWARF_CFLAGS ?= -I/usr/include/libdwarf
# memphis-report is linked with link-time optimisation where the compiler has it (GCC;
# REPORT_LTO= turns it off): the sample pass calls from report/report_pass.c into attrib/attrib_resolve.c
# for every sample, and inlining that call saves 12 % of the pass's instructions. Fat
# objects: the unit tests link the same objects without it.
ifeq ($(origin REPORT_LTO),undefined)
REPORT_LTO := $(shell $(CC) -flto=auto -ffat-lto-objects -Werror -x c -c /dev/null -o /dev/null 2>/dev/null && echo -flto=auto -ffat-lto-objects)
endif
# ... and at -O3: the sample pass 4-6 % less CPU a sample on examples/cg's runs, the
# synthetic 10 M run 2.5 % (docs/bench.md, 2026-12-08); the library stays at -O2.
REPORT_OPT := -O3
POST_CFLAGS := $(BASE_CFLAGS) $(REPORT_OPT) -Ipost -Icommon $(DWARF_CFLAGS) -pthread $(REPORT_LTO) $(CFLAGS)
# common/: internal code both lib/ and post/ use (CRC, maps parser, u64 map, hash, search,
# the SAMPLES layout 3 and STACKS layout 2 codecs),
# built once, position-independent and hidden, linked into both; never installed.
COMMON_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden $(CFLAGS)
LIB_LIBS := -lZydis -lelf -lnuma -lpfm -lpapi -ldl -lpthread
POST_LIBS := -ldwarf -ldw -lelf -lZydis -lz -ljson-c -lprotobuf-c -liberty -lm -pthread

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRCS := $(wildcard lib/*.c lib/*/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(B)/%.o)
POST_SRCS := $(wildcard post/*.c post/*/*.c)
POST_OBJS := $(POST_SRCS:%.c=$(B)/%.o) $(B)/gen/profile.pb-c.o
# post/main.c holds main(); everything else also goes into libpost.a for the unit tests.
POST_LIB_OBJS := $(filter-out $(B)/post/main.o,$(POST_OBJS)) $(COMMON_OBJS)
UNIT_SRCS := $(wildcard tests/unit/unit_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
# Each unit test is linked with the side it tests and nothing else (so a post/ test never
# carries lib/'s malloc interposer, nor a lib/ test post/'s objects): the rules are below.
# Every tests/unit/unit_NAME.c is in exactly one list, by what it calls:
#   UNIT_LIB     lib/ (the collector): libmemphis.a, which holds common/'s objects too
#   UNIT_POST    post/ (memphis-report): libpost.a, which holds common/'s objects too
#   UNIT_COMMON  common/ and the header-only include/memphis/hwdecode.h, which both sides
#                use: common/'s objects alone
UNIT_LIB := decode fd heapmap hwbackend io kmod_decode perf perfctr rank replay replay_ibs stack
UNIT_POST := advice aggregate allocsite compare debuginfo debuginfo_locals heap heapvar \
	hwsrc json kallsyms kerneltime pages pollloop radix rundir runtime unwind
UNIT_COMMON := bigmem crc32c hwdecode maps search u64map u64set
UNIT_NOSIDE := $(filter-out $(UNIT_LIB) $(UNIT_POST) $(UNIT_COMMON),\
	$(UNIT_SRCS:tests/unit/unit_%.c=%))
ifneq ($(UNIT_NOSIDE),)
$(error $(UNIT_NOSIDE:%=tests/unit/unit_%.c) in no list: UNIT_LIB, UNIT_POST or UNIT_COMMON)
endif
# tests/programs/: what the tests run (prog_*: workloads run under memphis, shim_*: libraries
# preloaded, tool_*: tools that write or rewrite run directories or drive the module), built
# into $(B)/tests/, where the tests run them from
PROG_SRCS := $(wildcard tests/programs/prog_*.c)
# bench/prog_*.c: programs only `make bench` runs; built like the tests' programs and into
# the same $(B)/tests/, where bench.sh and tests/hw/bundle.sh take every program from
BENCH_PROG_SRCS := $(wildcard bench/prog_*.c)
PROG_BINS := $(PROG_SRCS:tests/programs/%.c=$(B)/tests/%) \
	     $(BENCH_PROG_SRCS:bench/%.c=$(B)/tests/%) $(B)/tests/dlib_table.so \
	     $(B)/tests/shim_nocpu.so $(B)/tests/shim_calls.so \
	     $(B)/tests/shim_uncompress.so $(B)/tests/shim_ctrcpu.so $(B)/tests/shim_numamaps.so \
	     $(B)/tests/shim_pin.so
# C++ workloads (tests/programs/prog_*.cc): how the report names heap objects of operator new
PROGXX_SRCS := $(wildcard tests/programs/prog_*.cc)
PROGXX_BINS := $(PROGXX_SRCS:tests/programs/%.cc=$(B)/tests/%)
TOOL_SRCS := $(wildcard tests/programs/tool_*.c)
TOOL_BINS := $(TOOL_SRCS:tests/programs/%.c=$(B)/tests/%)
EXAMPLE_SRCS := $(filter-out examples/mpi/%,$(wildcard examples/*/*.c))
EXAMPLE_BINS := $(patsubst examples/%.c,$(B)/examples/%,$(EXAMPLE_SRCS))
FEXAMPLE_SRCS := $(filter-out examples/mpi/%,$(wildcard examples/*/*.f90))
FEXAMPLE_BINS := $(patsubst examples/%.f90,$(B)/examples/%,$(FEXAMPLE_SRCS))

# examples/mpi: built with the MPI compiler wrappers when they exist (`make deps` installs
# Open MPI), else skipped with one line; the C stencil is also built without MPI
# (-DMEMPHIS_NO_MPI, halo-nompi) for the NUMA guest, which has no mpirun.
MPICC := $(shell command -v mpicc 2>/dev/null)
MPIFC := $(shell command -v mpif90 2>/dev/null)
MPI_BINS := $(B)/examples/mpi/halo-nompi $(if $(MPICC),$(B)/examples/mpi/halo) \
	$(if $(MPIFC),$(B)/examples/mpi/halo_f)
MPI_NOTE := $(if $(and $(MPICC),$(MPIFC)),,mpi-note)

# The kernel module, built against every Debian kernel headers tree installed (generic
# flavour, /usr/src/linux-headers-<release>-amd64: make deps installs 6.1's and 6.12's)
# into $(B)/kmod/<release>/, the NUMA guest's module for that kernel (tests/vm boots each),
# and whose build.log tests/pkg/t_kmod_build.sh holds to zero warnings. KMOD_KDIR, the tree
# for this host, is the running kernel's headers when installed, else the newest tree by
# version (sort -V: 6.12 after 6.9); its module is also $(B)/kmod/memphismod.ko. Each
# builds from a copy of kmod/ so that parallel builds do not share Kbuild's files. Mode
# 0755: the guest's packer takes BUILD's executables. A failed module build warns and leaves
# the rest of the build alone. Installing the module: make -C kmod install (kmod/README.md).
# kmod_release KDIR: the release a module built against KDIR is for (its vermagic)
kmod_release = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' $(1)/include/generated/utsrelease.h 2>/dev/null)
# (KMOD_SRCDIR and KMOD_RUNNING_KDIR are there for tests/pkg/t_kmod_build.sh's fake trees.)
KMOD_SRCDIR ?= /usr/src
KMOD_RUNNING_KDIR ?= /lib/modules/$(shell uname -r)/build
KMOD_KDIRS := $(shell ls -d $(KMOD_SRCDIR)/linux-headers-*-amd64 2>/dev/null | grep -vE -- '-(cloud|rt)-amd64$$' | sort -V)
KMOD_KDIR ?= $(or $(shell [ -d "$(KMOD_RUNNING_KDIR)" ] && echo "$(KMOD_RUNNING_KDIR)"),$(lastword $(KMOD_KDIRS)))
KMOD_KVER := $(if $(KMOD_KDIR),$(call kmod_release,$(KMOD_KDIR)))
# KMOD_KDIR first, then the trees of the other releases
KMOD_TREES := $(if $(KMOD_KVER),$(KMOD_KDIR)) $(foreach k,$(KMOD_KDIRS),$(if \
	$(filter-out $(KMOD_KVER),$(call kmod_release,$(k))),$(k)))
KMOD_KOS := $(foreach k,$(KMOD_TREES),$(B)/kmod/$(call kmod_release,$(k))/memphismod.ko)
KMOD_KO := $(if $(KMOD_KVER),$(B)/kmod/memphismod.ko)

FORTRAN_PROGRAMS := $(if $(filter 1,$(FORTRAN)),$(B)/libmemphis_f.a $(B)/fortran/memphis.mod)
PROGRAMS := $(B)/libmemphis.so $(B)/libmemphis.a $(B)/memphis $(B)/memphis-report \
	$(FORTRAN_PROGRAMS)

.PHONY: all programs deps demo check check-unit check-vm bench fuzz install uninstall clean
all: $(PROGRAMS) $(UNIT_BINS) $(PROG_BINS) $(PROGXX_BINS) $(TOOL_BINS) $(EXAMPLE_BINS) $(FEXAMPLE_BINS) $(KMOD_KOS) $(KMOD_KO) \
	$(MPI_BINS) $(MPI_NOTE)

# What `make install` installs, and nothing else (no tests, examples or module): the
# packages build this (debian/rules, packaging/spack).
programs: $(PROGRAMS)

# Debian packages the build, the tests and the demo need. As root they are installed;
# otherwise the exact command is printed and make stops. demo/check/check-vm/bench run deps
# first and build in a sub-make, so KMOD_KDIRS is looked up after the headers are in: on a
# fresh machine the module is built (and its guest tests run) on the first run. The headers
# of both Debian 12 kernels: linux-headers-amd64 (6.1) and linux-headers-6.12-amd64
# (bookworm-security; it depends on its linux-image, so apt installs that kernel too).
# BUILD_DEB_PKGS: what `make programs` (the library, the launcher, memphis-report, the
# Fortran binding) builds with; tests/pkg/t_readme.sh installs these alone.
BUILD_DEB_PKGS := gcc make pkg-config libzydis-dev libdwarf-dev libelf-dev zlib1g-dev \
	libnuma-dev libpfm4-dev libpapi-dev gfortran libjson-c-dev libdw-dev
# --format pprof: protobuf-c's library and code generator, and pprof's profile.proto
BUILD_DEB_PKGS += libprotobuf-c-dev protobuf-c-compiler golang-github-google-pprof-dev
# C++ function names as the user wrote them: libiberty's demangler (post/binary/demangle.c)
BUILD_DEB_PKGS += libiberty-dev
DEB_PKGS := $(BUILD_DEB_PKGS) g++ numactl linux-perf python3 time clang libclang-rt-14-dev \
	linux-headers-amd64 linux-headers-6.12-amd64
# dkms: tests/pkg/t_dkms.sh builds the module through it (make install-dkms)
DEB_PKGS += dkms
# examples/mpi, tests/lib/t_mpi*.sh and tests/report/t_mpi_report.sh: mpicc, mpif90,
# mpirun (Open MPI)
DEB_PKGS += openmpi-bin libopenmpi-dev
# libjs-d3: memphis-report --html inlines its d3.min.js into every page (docs/html.md)
DEB_PKGS += libjs-d3
# For the tests only (make check; make demo does without): Debian's chromium, which
# tests/report/t_html.sh drives headless with puppeteer-core (node's, from the npm registry,
# pinned for Debian 12's chromium and node 18, installed into $(B)/npm by check-deps).
TEST_DEB_PKGS := chromium nodejs
# tests/pkg/t_deb.sh builds the Debian packages (debian/), checks them with lintian and
# installs them into a debootstrap chroot; tests/pkg/t_spack.sh checks the Spack recipe's
# style as `spack style` does (flake8, black, isort)
TEST_DEB_PKGS += dpkg-dev debhelper dh-dkms lintian debootstrap flake8 black isort
# tests/report/t_export_pprof.sh reads --format pprof with the real reader: go tool pprof
TEST_DEB_PKGS += golang-go
PUPPETEER := puppeteer-core@24.43.1
# tests/report/t_export_trace.sh opens --format trace's file in speedscope's release build
# (node_modules/speedscope/dist/release), served on 127.0.0.1 to the same chromium
SPEEDSCOPE := speedscope@1.25.0

# packaging/deb-install.sh PACKAGES: installs the missing ones (as root; it says what and
# shows each package set up) or prints the command that would

deps:
	$(Q)sh packaging/deb-install.sh $(DEB_PKGS)

# Debian's nodejs comes without npm (NodeSource's has it): npm then too.
.PHONY: check-deps
check-deps: deps
	$(Q)sh packaging/deb-install.sh $(TEST_DEB_PKGS) $(if $(shell command -v npm),,npm)
	$(Q)[ -d $(B)/npm/node_modules/puppeteer-core ] || { mkdir -p $(B)/npm && \
	  npm install --silent --no-audit --no-fund --prefix $(B)/npm $(PUPPETEER) > /dev/null; }
	$(Q)[ -f $(B)/npm/node_modules/speedscope/dist/release/index.html ] || { mkdir -p $(B)/npm && \
	  npm install --silent --no-audit --no-fund --prefix $(B)/npm $(SPEEDSCOPE) > /dev/null; }

$(B)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(LIB_CFLAGS) -c $< -o $@

$(B)/common/%.o: common/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(COMMON_CFLAGS) -c $< -o $@

$(B)/post/%.o: post/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(POST_CFLAGS) -c $< -o $@

# --format pprof (post/report/report_pprof.c) writes pprof's profile.proto with protobuf-c's
# code generated from pprof's own schema (Debian ships it with pprof's Go sources): the
# message layout is the schema's, not ours to copy.
PPROF_PROTO ?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
$(B)/gen/profile.pb-c.c $(B)/gen/profile.pb-c.h &: $(PPROF_PROTO)
	@mkdir -p $(B)/gen
	@$(if $(Q),echo "  PROTOC  $<")
	$(Q)protoc-c --proto_path=$(dir $<) --c_out=$(B)/gen $(notdir $<)
$(B)/gen/profile.pb-c.o: $(B)/gen/profile.pb-c.c
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -O2 -fPIC $(REPORT_LTO) $(CFLAGS) -c $< -o $@
$(B)/post/report/report_pprof.o: $(B)/gen/profile.pb-c.h
$(B)/post/report/report_pprof.o: POST_CFLAGS += -I$(B)/gen

# where an installed memphis-report finds the page's files (it also looks beside itself:
# BINDIR/../share/memphis/html, and in the build tree's share/memphis/html)
$(B)/post/html/html.o: POST_CFLAGS += -DMEMPHIS_DATADIR='"$(DATADIR)"'

$(B)/libmemphis.so: $(LIB_OBJS) $(COMMON_OBJS) lib/libmemphis.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,--version-script=lib/libmemphis.map -Wl,-soname,libmemphis.so.$(firstword $(subst ., ,$(VERSION))) -o $@ $(LIB_OBJS) $(COMMON_OBJS) $(LIB_LIBS) $(CFLAGS) $(LDFLAGS)
	$(Q)ln -sf libmemphis.so $(B)/libmemphis.so.$(firstword $(subst ., ,$(VERSION)))

# The archive's code and data in sections of their own names, so that a program linked
# with it still tells the library's code and data from its own (memphis-report sets them
# aside: post/attrib/attrib_self.c): the linker keeps sections of unknown names apart, beside
# .text, .data and .bss. The mergeable constants (.rodata.str*, .rodata.cst*) and TLS stay.
OBJCOPY ?= objcopy
SELF_SECTIONS := $(foreach s,.text .text.startup .text.exit .text.unlikely .text.hot,--rename-section $(s)=memphis_text) \
	$(foreach s,.data .data.rel .data.rel.local .data.rel.ro .data.rel.ro.local,--rename-section $(s)=memphis_data) \
	--rename-section .bss=memphis_bss --rename-section .rodata=memphis_rodata
$(B)/libmemphis.a: $(LIB_OBJS) $(COMMON_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(LIB_OBJS) $(COMMON_OBJS) && $(OBJCOPY) $(SELF_SECTIONS) $@

# The launcher: a program beside the library (it only sets MEMPHIS_* and LD_PRELOAD; for
# `memphis apply` it runs memphis-report plan, for `memphis tune` the runs and the reports);
# it shares the list of backend names
# (lib/backend/names.h).
LAUNCH_OBJS := $(B)/cmd/memphis.o $(B)/cmd/apply.o $(B)/cmd/tune.o
$(B)/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Ilib/backend $(CFLAGS) -DMEMPHIS_LIBDIR='"$(LIBDIR)"' -c $< -o $@

$(B)/memphis: $(LAUNCH_OBJS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LAUNCH_OBJS) -o $@ $(LDFLAGS)

$(B)/memphis-report: $(POST_OBJS) $(COMMON_OBJS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(REPORT_OPT) $(REPORT_LTO) -o $@ $(POST_OBJS) $(COMMON_OBJS) $(POST_LIBS) $(CFLAGS) $(LDFLAGS)

# memphis.pc is written by `make install` itself, from the PREFIX/LIBDIR/INCDIR/FMODDIR of
# that call, so that it names where the files went (a file made at build time would keep the
# build's PREFIX). DESTDIR is not in it: a staged install is moved to PREFIX afterwards.
# Spaces in the directories are escaped for pkg-config's argument splitting.
# fflags/fortran_libs: for Fortran, `pkg-config --variable=fflags memphis` and
# `pkg-config --variable=fortran_libs memphis` (pkg-config has no Fortran field; none with
# FORTRAN=0)
PC_ESC = $(subst $(space),\$(space),$(1))
space := $(subst ,, )
define PC_FORTRAN
fmoddir=$(call PC_ESC,$(FMODDIR))
fflags=-I$${fmoddir}
fortran_libs=-L$${libdir} -lmemphis_f -lmemphis
endef
define PC_CONTENT
prefix=$(call PC_ESC,$(PREFIX))
libdir=$(call PC_ESC,$(LIBDIR))
includedir=$(call PC_ESC,$(INCDIR))
$(if $(FORTRAN_PROGRAMS),$(PC_FORTRAN))

Name: memphis
Description: data-centric NUMA memory profiler
Version: $(VERSION)
Libs: -L$${libdir} -lmemphis
Libs.private: $(LIB_LIBS)
Cflags: -I$${includedir}
endef
install: export PC_TEXT = $(PC_CONTENT)

# The Fortran binding: module memphis (bindings/fortran/memphis.f90) as build/fortran/
# memphis.mod and a static libmemphis_f.a beside libmemphis. A separate archive keeps
# libmemphis.so pure C (no libgfortran for C programs), and the module's object is only
# usable with the .mod of the same compiler anyway. Link: -lmemphis_f -lmemphis.
FWARN := -Wall -Wextra -Werror
BIND_FFLAGS := -std=f2008 -pedantic $(FWARN) -O2 -g -fPIC $(FFLAGS)
$(B)/fortran/memphis.o: bindings/fortran/memphis.f90
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FC      $<")
	$(Q)$(FC) $(BIND_FFLAGS) -J$(@D) -c $< -o $@
$(B)/fortran/memphis.mod: $(B)/fortran/memphis.o
	@:

$(B)/libmemphis_f.a: $(B)/fortran/memphis.o
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $<

$(B)/libpost.a: $(POST_LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(POST_LIB_OBJS)

# Unit tests link the objects of their side directly (they test internal functions), with
# that side's headers only (lib/ and post/ both have a heap.h: each side sees its own).
$(UNIT_LIB:%=$(B)/tests/unit_%): $(B)/tests/unit_%: tests/unit/unit_%.c $(B)/libmemphis.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Ilib -Ilib/backend -Icommon -pthread $(CFLAGS) $< -o $@ $(B)/libmemphis.a $(LIB_LIBS) $(LDFLAGS)

$(UNIT_POST:%=$(B)/tests/unit_%): $(B)/tests/unit_%: tests/unit/unit_%.c $(B)/libpost.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Ipost -Icommon $(DWARF_CFLAGS) -pthread $(CFLAGS) $< -o $@ $(B)/libpost.a $(POST_LIBS) $(LDFLAGS)

$(UNIT_COMMON:%=$(B)/tests/unit_%): $(B)/tests/unit_%: tests/unit/unit_%.c $(COMMON_OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Icommon $(CFLAGS) $< -o $@ $(COMMON_OBJS) $(LDFLAGS)

# The unit tests' and tools' sources were tests/unit_NAME.c and tests/tool_NAME.c: the
# dependency files of a build made before name them there. Like -MP's rules for headers,
# these empty rules let make rebuild such a binary from its new source instead of stopping.
tests/unit_%.c tests/tool_%.c: ;

# Workloads run under memphis: OpenMP, linked to the shared library like a user would.
PROG_CFLAGS := -std=gnu11 -g -O2 -fopenmp -pthread -Iinclude -Wall -Wextra -Werror -Wno-unused-parameter
PROG_LDFLAGS := -L$(B) -Wl,-rpath,'$$ORIGIN/..' -lmemphis -lnuma
$(B)/tests/prog_%: tests/programs/prog_%.c $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(PROG_CFLAGS) $< -o $@ $(PROG_LDFLAGS) $(LDFLAGS)

$(B)/tests/prog_%: bench/prog_%.c $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(PROG_CFLAGS) $< -o $@ $(PROG_LDFLAGS) $(LDFLAGS)

# Two files, each with a static `work` of its own (variables that share a name, issue 38).
$(B)/tests/prog_collide: tests/programs/prog_collide.c tests/programs/collide_b.c \
	tests/programs/collide.h $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(PROG_CFLAGS) $< tests/programs/collide_b.c -o $@ $(PROG_LDFLAGS) $(LDFLAGS)

PROGXX_CXXFLAGS := -std=c++17 -g -O2 -fopenmp -pthread -Iinclude -Wall -Wextra -Werror -Wno-unused-parameter
$(B)/tests/prog_%: tests/programs/prog_%.cc $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) $(PROGXX_CXXFLAGS) $(CXXFLAGS) $< -o $@ $(PROG_LDFLAGS) $(LDFLAGS)

# A library the dlopen test loads, unloads and loads again (tests/lib/t_dlopen.sh).
$(B)/tests/dlib_table.so: tests/programs/dlib_table.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 -g -O2 -fPIC -shared -Wall -Wextra -Werror $< -o $@ $(LDFLAGS)

# Preloaded before libmemphis: shim_nocpu refuses perf events of a CPU, as a kernel does to
# a user without CAP_PERFMON at perf_event_paranoid >= 1 (tests/lib/t_scope.sh); shim_calls
# counts the library's sleeps and perf event switches (tests/lib/t_touch.sh, t_linger.sh);
# shim_uncompress counts memphis-report's inflating of compressed DWARF (t_callers.sh);
# shim_ctrcpu opens the library's own counters on one CPU only (t_counters.sh); shim_numamaps
# tells where the kernel put a placed program's memory (t_apply.sh, numa-place); shim_pin
# pins threads as likwid-pin's preloaded wrapper does (t_robust.sh).
$(B)/tests/shim_%.so: tests/programs/shim_%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 -g -O2 -fPIC -shared -Wall -Wextra -Werror $< -o $@ $(LDFLAGS)

# Test tools are programs of their own; those that write run directories take the CRC and
# the codecs of SAMPLES layout 3 and STACKS layout 2 from common/.
$(B)/tests/tool_%: tests/programs/tool_%.c $(B)/common/crc32c.o $(B)/common/samples3.o \
		   $(B)/common/stacks2.o
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Icommon $(CFLAGS) $< -o $@ $(B)/common/crc32c.o $(B)/common/samples3.o \
		$(B)/common/stacks2.o $(LDFLAGS) -lm

$(B)/examples/%: examples/%.c $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(PROG_CFLAGS) $< -o $@ -L$(B) -Wl,-rpath,'$$ORIGIN/../..' -lmemphis -lm $(LDFLAGS)

# Fortran examples: OpenMP, with the binding, linked like a user would. Each gets its own
# module directory (examples may define modules).
EX_FFLAGS := -g -O2 -fopenmp $(FWARN) $(FFLAGS)
$(B)/examples/%: examples/%.f90 $(B)/fortran/memphis.mod $(B)/libmemphis_f.a $(B)/libmemphis.so
	@mkdir -p $(@D)/$(*F).fmod
	@$(if $(Q),echo "  FC      $<")
	$(Q)$(FC) $(EX_FFLAGS) -I$(B)/fortran -J$(@D)/$(*F).fmod $< -o $@ -L$(B) -Wl,-rpath,'$$ORIGIN/../..' \
	  -lmemphis_f -lmemphis $(LDFLAGS)

$(B)/examples/mpi/halo: examples/mpi/halo.c $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) $(PROG_CFLAGS) $< -o $@ -L$(B) -Wl,-rpath,'$$ORIGIN/../..' -lmemphis $(LDFLAGS)

$(B)/examples/mpi/halo-nompi: examples/mpi/halo.c $(B)/libmemphis.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (no MPI)")
	$(Q)$(CC) $(PROG_CFLAGS) -DMEMPHIS_NO_MPI $< -o $@ -L$(B) -Wl,-rpath,'$$ORIGIN/../..' -lmemphis $(LDFLAGS)

$(B)/examples/mpi/halo_f: examples/mpi/halo_f.f90 $(B)/fortran/memphis.mod $(B)/libmemphis_f.a $(B)/libmemphis.so
	@mkdir -p $(@D)/halo_f.fmod
	@$(if $(Q),echo "  MPIFC   $<")
	$(Q)$(MPIFC) $(EX_FFLAGS) -I$(B)/fortran -J$(@D)/halo_f.fmod $< -o $@ -L$(B) -Wl,-rpath,'$$ORIGIN/../..' \
	  -lmemphis_f -lmemphis $(LDFLAGS)

.PHONY: mpi-note
mpi-note:
	@echo "memphis: $(if $(MPICC),,no mpicc: examples/mpi/halo not built; )$(if $(MPIFC),,no mpif90: examples/mpi/halo_f not built; )make deps installs them (openmpi-bin libopenmpi-dev)"

# $(B)/kmod/RELEASE/memphismod.ko against the tree of that release (KDIR, set per target)
$(foreach k,$(KMOD_TREES),$(eval $(B)/kmod/$(call kmod_release,$(k))/memphismod.ko: KDIR := $(k)))
$(KMOD_KOS): $(B)/kmod/%/memphismod.ko: kmod/memphismod.c kmod/Kbuild include/memphis/memphismod.h \
	include/memphis/memphismod_rec.h include/memphis/hwdecode.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  KMOD    $@ ($(notdir $(KDIR)))")
	$(Q)cp kmod/memphismod.c kmod/Kbuild $(@D)/
	$(Q)if $(MAKE) --no-print-directory -s -C $(KDIR) M=$(abspath $(@D)) \
	  MEMPHIS_INC=$(abspath include) CFLAGS= LDFLAGS= modules > $(@D)/build.log 2>&1; then \
	  chmod 0755 $@; else tail -n 20 $(@D)/build.log; rm -f $@; \
	  echo "memphis: WARNING: kmod/ did not build against $(KDIR) (log: $(@D)/build.log); the library is unaffected, the module's guest tests on that kernel will skip"; fi

$(B)/kmod/memphismod.ko: $(B)/kmod/$(KMOD_KVER)/memphismod.ko
	$(Q)if [ -f $< ]; then cp $< $@; else rm -f $@; fi

# Fuzz targets: tests/fuzz/fuzz_NAME.c is linked with the sources in FUZZ_NAME_SRCS (one
# variable per target, so moving a file changes one line) by clang with libFuzzer, ASan
# and UBSan, into $(B)-fuzz/fuzz_NAME. tests/fuzz/t_fuzz.sh runs each for a few seconds in
# `make check` (seeded there); `make fuzz FUZZ_SECONDS=N` (or FUZZ_RUNS=N) runs it longer,
# keeping the corpora in $(B)-fuzz/corpus/.
FUZZ_CC ?= clang
FUZZ_B := $(B)-fuzz
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -Iinclude -Ilib -Ilib/backend -Ipost -Icommon \
	$(DWARF_CFLAGS)
FUZZ_rundir_SRCS := $(wildcard post/run/rundir*.c) post/base/radix.c post/base/infile.c common/crc32c.c \
	common/samples3.c common/stacks2.c
FUZZ_samples3_SRCS := common/samples3.c
FUZZ_maps_SRCS := common/maps.c
FUZZ_debuginfo_SRCS := $(wildcard post/binary/debuginfo*.c) post/binary/cfi.c post/binary/demangle.c post/base/radix.c post/base/infile.c
FUZZ_debuginfo_LIBS := -ldwarf -ldw -lelf -lz -liberty
FUZZ_kmod_record_SRCS := lib/backend/kmod_record.c
FUZZ_heapvar_SRCS := post/binary/heapvar.c
FUZZ_heapvar_LIBS := -lZydis
FUZZ_pollloop_SRCS := post/binary/pollloop.c
FUZZ_pollloop_LIBS := -lZydis
FUZZ_compare_json_SRCS := post/compare/compare_parse.c
FUZZ_compare_json_LIBS := -ljson-c
FUZZ_html_source_SRCS := post/html/html_source.c post/base/infile.c
FUZZ_html_source_LIBS := -ljson-c -ldwarf -lelf -lz
FUZZ_json_strict_SRCS := post/base/json_strict.c
FUZZ_json_strict_LIBS := -ljson-c
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_B)/fuzz_%)
FUZZ_HDRS := $(wildcard include/*.h include/memphis/*.h lib/*.h lib/*/*.h post/*.h post/*/*.h common/*.h)

fuzz: $(FUZZ_BINS)
ifneq ($(FUZZ_SECONDS)$(FUZZ_RUNS),)
	$(Q)rm -rf $(FUZZ_B)/run && mkdir -p $(FUZZ_B)/corpus $(FUZZ_B)/run && cd $(FUZZ_B)/run && \
	  MEMPHIS_BUILD=$(abspath $(B)) MEMPHIS_SRC=$(CURDIR) MEMPHIS_FUZZ_CORPUS=$(abspath $(FUZZ_B))/corpus \
	  MEMPHIS_FUZZ_SECONDS=$(FUZZ_SECONDS) MEMPHIS_FUZZ_RUNS=$(FUZZ_RUNS) MEMPHIS_FUZZ_ONLY='$(FUZZ_ONLY)' \
	  sh $(CURDIR)/tests/fuzz/t_fuzz.sh
endif

.SECONDEXPANSION:
$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c $$(FUZZ_$$*_SRCS) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_$*_SRCS) -o $@ $(FUZZ_$*_LIBS)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh examples/cg/demo.sh $(B)

# check also builds the library and tests with UBSan (build-ubsan/) and memphis-report with
# ASan+UBSan (build-asan/); tests/run.sh runs the suites that apply under each.
# ASan cannot share a process with libmemphis's malloc interposition, so only the report
# (which does not link the library) runs under ASan.
UBSAN := -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# memphis-report's threaded sample pass (post/report/report_pass.c) under ThreadSanitizer
TSAN := -fsanitize=thread -fno-omit-frame-pointer
check: check-deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory B=$(B)-ubsan CFLAGS="$(UBSAN) $(CFLAGS)" all
	$(Q)$(MAKE) --no-print-directory B=$(B)-asan CFLAGS="$(ASAN) $(CFLAGS)" $(B)-asan/memphis-report
	$(Q)$(MAKE) --no-print-directory B=$(B)-tsan CFLAGS="$(TSAN) $(CFLAGS)" $(B)-tsan/memphis-report
	$(Q)sh tests/run.sh $(B)

check-vm: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/vm/run.sh $(B)

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh bench/bench.sh $(B)

# Every installed path is quoted: PREFIX, DESTDIR and the directories may hold spaces.
# After an install into the loader's own path (/usr/local/lib on Debian), programs find
# libmemphis.so.N only once ldconfig has run: as root it is run, else its command printed.
# Any other LIBDIR (a private PREFIX) gets the three variables a user sets. A staged
# install (DESTDIR) is the packager's: nothing.
install: $(PROGRAMS)
	install -d "$(DESTDIR)$(LIBDIR)/pkgconfig" "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(INCDIR)/memphis"
	install -m 0644 $(B)/libmemphis.a "$(DESTDIR)$(LIBDIR)/"
	install -m 0755 $(B)/libmemphis.so "$(DESTDIR)$(LIBDIR)/libmemphis.so.$(VERSION)"
	ln -sf libmemphis.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/libmemphis.so.$(firstword $(subst ., ,$(VERSION)))"
	ln -sf libmemphis.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/libmemphis.so"
	printf '%s\n' "$$PC_TEXT" > "$(DESTDIR)$(LIBDIR)/pkgconfig/memphis.pc"
	install -m 0644 include/memphis.h "$(DESTDIR)$(INCDIR)/"
	install -m 0644 include/memphis/format.h "$(DESTDIR)$(INCDIR)/memphis/"
ifneq ($(FORTRAN_PROGRAMS),)
	install -d "$(DESTDIR)$(FMODDIR)"
	install -m 0644 $(B)/libmemphis_f.a "$(DESTDIR)$(LIBDIR)/"
	install -m 0644 $(B)/fortran/memphis.mod "$(DESTDIR)$(FMODDIR)/"
endif
	install -m 0755 $(B)/memphis $(B)/memphis-report "$(DESTDIR)$(BINDIR)/"
	install -d "$(DESTDIR)$(DATADIR)/memphis/html"
	install -m 0644 share/memphis/html/page.html share/memphis/html/memphis.css \
	  share/memphis/html/memphis.js "$(DESTDIR)$(DATADIR)/memphis/html/"
	for m in docs/*.1 docs/*.3; do [ -f "$$m" ] || continue; s=$${m##*.}; \
	  install -d "$(DESTDIR)$(MANDIR)/man$$s" && install -m 0644 $$m "$(DESTDIR)$(MANDIR)/man$$s/"; done
	@[ -n "$(DESTDIR)" ] || \
	if ldconfig -v -N 2>/dev/null | awk -v d="$(LIBDIR):" '$$1 == d { f = 1 } END { exit !f }'; then \
	  if [ "$$(id -u)" = 0 ]; then ldconfig; else echo "memphis: now run as root: ldconfig"; fi; \
	else \
	  echo "memphis: $(LIBDIR) is not in the dynamic loader's path; to use this install:"; \
	  echo "  export PATH=\"$(BINDIR):\$$PATH\" PKG_CONFIG_PATH=\"$(LIBDIR)/pkgconfig\" LD_LIBRARY_PATH=\"$(LIBDIR)\""; \
	fi

uninstall:
	rm -f "$(DESTDIR)$(LIBDIR)/libmemphis.a" "$(DESTDIR)$(LIBDIR)"/libmemphis.so* \
	  "$(DESTDIR)$(LIBDIR)/libmemphis_f.a" "$(DESTDIR)$(FMODDIR)/memphis.mod" \
	  "$(DESTDIR)$(LIBDIR)/pkgconfig/memphis.pc" "$(DESTDIR)$(INCDIR)/memphis.h" \
	  "$(DESTDIR)$(BINDIR)/memphis" "$(DESTDIR)$(BINDIR)/memphis-report"
	rm -rf "$(DESTDIR)$(INCDIR)/memphis" "$(DESTDIR)$(DATADIR)/memphis/html"
	for m in docs/*.1 docs/*.3; do [ -f "$$m" ] || continue; s=$${m##*.}; \
	  rm -f "$(DESTDIR)$(MANDIR)/man$$s/$${m##*/}"; done
	@[ -n "$(DESTDIR)" ] || [ "$$(id -u)" != 0 ] || ldconfig

# The kernel module for DKMS (kmod/README.md): its source, its headers and dkms.conf with
# this VERSION in /usr/src/memphismod-VERSION/; the udev rule (/dev/memphismod root,
# MEMPHIS_GROUP, 0660) and a modprobe.d file with that group's gid for the module's `group`
# parameter, resolved here with getent (commented out, to be filled in, when the group does
# not exist here or the install is staged in DESTDIR, where this machine's gid means
# nothing). As root without DESTDIR, dkms then adds it, and builds and installs it for
# DKMS_KERNEL (the running kernel) when its headers are there (AUTOINSTALL: for future
# kernels with theirs); otherwise the command to run is printed.
# DKMS_SRCDIR: /usr/src, where dkms looks; a Spack prefix installs it under PREFIX/src
DKMS_SRCDIR ?= /usr/src
DKMS_SRC := $(DKMS_SRCDIR)/memphismod-$(VERSION)
DKMS_HDRS := include/memphis/memphismod.h include/memphis/memphismod_rec.h include/memphis/hwdecode.h
UDEVRULESDIR ?= /usr/lib/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
MEMPHIS_GROUP ?= memphis
DKMS_KERNEL ?= $(shell uname -r)
.PHONY: install-dkms uninstall-dkms
install-dkms:
	install -d "$(DESTDIR)$(DKMS_SRC)/include/memphis" "$(DESTDIR)$(UDEVRULESDIR)" "$(DESTDIR)$(MODPROBEDIR)"
	install -m 0644 kmod/memphismod.c kmod/Kbuild "$(DESTDIR)$(DKMS_SRC)/"
	install -m 0644 $(DKMS_HDRS) "$(DESTDIR)$(DKMS_SRC)/include/memphis/"
	sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' kmod/dkms.conf > "$(DESTDIR)$(DKMS_SRC)/dkms.conf"
	sed 's/GROUP="memphis"/GROUP="$(MEMPHIS_GROUP)"/' kmod/70-memphismod.rules > "$(DESTDIR)$(UDEVRULESDIR)/70-memphismod.rules"
	chmod 0644 "$(DESTDIR)$(DKMS_SRC)/dkms.conf" "$(DESTDIR)$(UDEVRULESDIR)/70-memphismod.rules"
	@gid=$$([ -z "$(DESTDIR)" ] && getent group $(MEMPHIS_GROUP) | cut -d: -f3); \
	if [ -n "$$gid" ]; then echo "options memphismod group=$$gid"; \
	else printf '%s\n' "# the gid of the group $(MEMPHIS_GROUP) (getent group $(MEMPHIS_GROUP)), e.g." \
	  "# options memphismod group=GID"; fi > "$(DESTDIR)$(MODPROBEDIR)/memphismod.conf"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v dkms >/dev/null; then \
	  if dkms status -m memphismod -v $(VERSION) | grep -q .; then dkms remove -m memphismod -v $(VERSION) --all; fi; \
	  dkms add -m memphismod -v $(VERSION) || exit 1; \
	  if [ -d /lib/modules/$(DKMS_KERNEL)/build ]; then \
	    dkms install -m memphismod -v $(VERSION) -k $(DKMS_KERNEL); \
	  else echo "memphis: no headers for kernel $(DKMS_KERNEL) (apt-get install linux-headers-$(DKMS_KERNEL)," \
	    "then: dkms install -m memphismod -v $(VERSION)); DKMS builds it for each kernel installed with its headers"; fi; \
	else echo "memphis: as root, run:  dkms install -m memphismod -v $(VERSION)"; fi

uninstall-dkms:
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v dkms >/dev/null && \
	  dkms status -m memphismod -v $(VERSION) | grep -q .; then dkms remove -m memphismod -v $(VERSION) --all; fi
	rm -rf "$(DESTDIR)$(DKMS_SRC)"
	rm -f "$(DESTDIR)$(UDEVRULESDIR)/70-memphismod.rules" "$(DESTDIR)$(MODPROBEDIR)/memphismod.conf"

clean:
	rm -rf $(B) $(B)-ubsan $(B)-asan $(B)-fuzz

-include $(filter-out $(B)/memphis.d,$(shell find $(B) -name '*.d' 2>/dev/null))

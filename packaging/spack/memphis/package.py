# Spack recipe for memphis (issue 17 item 5). Copy packaging/spack/memphis/ into a Spack
# package repository (`spack repo create`, then its packages/ directory). There is no public
# release tarball yet, so the version has no checksum: build a local clone with
#   spack dev-build memphis@0.1.0            (in the clone; or `spack develop memphis@0.1.0`)
# The version equals the tree's VERSION file (tests/pkg/t_spack.sh checks it). Spack >= 0.22
# (language dependencies c and fortran); Spack >= 1.0 keeps MakefilePackage in its builtin
# repository, older ones export it from spack.package.

from spack.package import *

try:
    from spack_repo.builtin.build_systems.makefile import MakefilePackage
except ImportError:
    pass


class Memphis(MakefilePackage):
    """Data-centric NUMA memory profiler for multi-threaded C and Fortran programs: it
    samples the memory accesses of every thread, maps each sampled address to a program
    variable (global, heap object, local, TLS) and reports, per NUMA node, the variables
    accessed remotely and who first touched their pages."""

    maintainers("memphis-maintainers")

    version("0.1.0")

    variant("fortran", default=True, description="Fortran binding: module memphis, libmemphis_f")
    variant(
        "kmod",
        default=False,
        description="Install the kernel module's source for DKMS (PREFIX/src/memphismod-VER), "
        "its udev rule and modprobe.d file; an administrator registers it with dkms",
    )

    # the sampler decodes x86-64 instructions (Zydis) and reads x86-64 thread pointers
    requires("target=x86_64:", msg="memphis samples and decodes x86-64 code only")
    requires("platform=linux", msg="memphis uses perf_event_open and Linux's NUMA API")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("gmake", type="build")

    # libdwarf's rnglists and locdesc *_d API; built and tested with Debian 12's 20210528
    depends_on("libdwarf@20210528:")
    depends_on("elfutils")
    depends_on("numactl")
    depends_on("libpfm4")
    depends_on("papi")
    depends_on("zydis@4:")
    depends_on("json-c")
    depends_on("zlib-api")
    # --format pprof: protobuf-c's library and protoc-c, and pprof's own schema (the commit
    # Debian 12 ships in golang-github-google-pprof-dev; the same bytes)
    depends_on("protobuf-c")
    # C++ function names as written: libiberty's demangler
    depends_on("binutils+libiberty")
    resource(
        name="pprof-profile-proto",
        url="https://raw.githubusercontent.com/google/pprof/"
        "947d60d73cc032f2b29bcb71685760133adbedfb/proto/profile.proto",
        sha256="b638dcdbf5b1242f533d67785ab680595ea1e9182ec35fbf9024fad10b192707",
        expand=False,
        placement="pprof-proto",
    )

    def make_args(self):
        """The Makefile's variables for this spec: where to install, the Fortran binding
        or not, where Spack's libdwarf keeps libdwarf.h, and pprof's schema."""
        return [
            f"PREFIX={self.prefix}",
            "FORTRAN=1" if self.spec.satisfies("+fortran") else "FORTRAN=0",
            f"DWARF_CFLAGS=-I{self.spec['libdwarf'].prefix.include}",
            f"PPROF_PROTO={join_path(self.stage.source_path, 'pprof-proto', 'profile.proto')}",
        ]

    def build(self, spec, prefix):
        make("programs", *self.make_args())

    def install(self, spec, prefix):
        make("install", *self.make_args())
        if spec.satisfies("+kmod"):
            # staged under the prefix (DESTDIR): dkms is not run, the gid is left to fill in
            make(
                "install-dkms",
                f"DESTDIR={prefix}",
                "DKMS_SRCDIR=/src",
                "UDEVRULESDIR=/lib/udev/rules.d",
                "MODPROBEDIR=/etc/modprobe.d",
            )

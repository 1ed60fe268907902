# The Spack recipe packaging/spack/memphis/package.py (issue 17 item 5), without Spack (not in
# Debian, and PyPI is not the way here): it compiles; flake8 passes it with Spack's settings
# for packages (line length 99, star import of spack.package allowed) and black and isort
# leave it unchanged, as `spack style` would; loaded with a small stand-in for spack.package
# that records the directives, its version is VERSION, it has the variants +fortran (default
# on) and +kmod (off) and the dependencies, and its build and install call `make programs` /
# `make install` (and `make install-dkms` under the prefix for +kmod) with PREFIX and
# FORTRAN=1/0 per variant; those calls, run against this tree's Makefile into a scratch
# prefix, install what each variant promises. Spack >= 1.0's import of MakefilePackage from
# spack_repo is taken when it exists.
. "$MEMPHIS_SRC/tests/tap.sh"

R="$S/packaging/spack/memphis/package.py"
command -v python3 > /dev/null || { echo "python3 is needed" >&2; exit 77; }
check "package.py compiles" python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$R"
if command -v flake8 > /dev/null; then
	flake8 --max-line-length 99 --extend-ignore E731,E203 --per-file-ignores='package.py:F403,F405' \
		"$R" > flake8.out 2>&1
	check "flake8 (Spack's settings: max-line-length 99, F403/F405 allowed) is clean" test ! -s flake8.out
	sed 's/^/# /' flake8.out
else
	not_ok "flake8 installed (make deps)"
fi
# `spack style` also formats with black and sorts imports with isort (line length 99)
for t in "black --check --diff -l 99 --skip-magic-trailing-comma" "isort --check-only --diff --profile black -l 99"; do
	if command -v "${t%% *}" > /dev/null; then
		$t "$R" > style.out 2>&1
		check "${t%% *} (Spack's settings) leaves it unchanged" test $? = 0
		grep '^[-+]' style.out | sed 's/^/# /'
	else
		not_ok "${t%% *} installed (make deps)"
	fi
done

cat > load.py <<'PY'
"""Load the recipe with a stand-in spack.package; print what it declares and calls."""
import importlib.util
import os
import sys
import types

recipe, prefix, modern, stage = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
out = []
pkg = types.ModuleType("spack.package")
for name in ("version", "variant", "depends_on", "requires", "conflicts", "maintainers",
             "license", "resource"):
    def directive(*a, _name=name, **k):
        out.append((_name, a, k))
    setattr(pkg, name, directive)
calls = []
pkg.make = lambda *a, **k: calls.append(a)
pkg.join_path = os.path.join


class Prefix(str):
    @property
    def include(self):
        return Prefix(self + "/include")


class Spec:
    def __init__(self, variants):
        self.variants = variants

    def satisfies(self, s):
        if s[:1] in "+~" and s[1:] in self.variants:
            return self.variants[s[1:]] == (s[0] == "+")
        raise ValueError("stand-in spec cannot answer " + s)

    def __getitem__(self, dep):
        return types.SimpleNamespace(prefix=Prefix("/spack/" + dep))


class OldMakefilePackage:
    def __init__(self, spec, prefix):
        self.spec, self.prefix = spec, Prefix(prefix)
        self.stage = types.SimpleNamespace(source_path=stage)


class NewMakefilePackage(OldMakefilePackage):
    pass


pkg.MakefilePackage = OldMakefilePackage
spack = types.ModuleType("spack")
spack.package = pkg
sys.modules.update({"spack": spack, "spack.package": pkg})
if modern:
    for m in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
        sys.modules[m] = types.ModuleType(m)
    mk = types.ModuleType("spack_repo.builtin.build_systems.makefile")
    mk.MakefilePackage = NewMakefilePackage
    sys.modules[mk.__name__] = mk
spec = importlib.util.spec_from_file_location("memphis_recipe", recipe)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
cls = mod.Memphis
print("base", cls.__bases__[0].__name__)
for name, a, k in out:
    kw = " ".join(f"{key}={k[key]}" for key in sorted(k))
    print(name, " ".join(map(str, a)), kw)
for fortran in (True, False):
    for kmod in (False, True):
        v = ("+" if fortran else "~") + "fortran" + ("+" if kmod else "~") + "kmod"
        p = cls(Spec({"fortran": fortran, "kmod": kmod}), prefix + "/" + v)
        for phase in ("build", "install"):
            calls.clear()
            getattr(p, phase)(p.spec, p.prefix)
            for c in calls:
                print("make", v, phase, "\t".join(c), sep="\t")
PY
# the stage holds the recipe's resource as Spack places it: pprof's profile.proto
proto=/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
mkdir -p stage/pprof-proto && cp "$proto" stage/pprof-proto/ 2> /dev/null
python3 load.py "$R" "$PWD/p" 0 "$PWD/stage" > recipe.out 2> load.err
check "the recipe loads with a stand-in spack.package" test $? = 0 -a -s recipe.out
sed 's/^/# /' load.err
python3 load.py "$R" "$PWD/p" 1 "$PWD/stage" > recipe1.out 2>> load.err
check "... and takes MakefilePackage from spack_repo where it exists (Spack >= 1.0)" \
	sh -c 'grep -qx "base NewMakefilePackage" recipe1.out && grep -qx "base OldMakefilePackage" recipe.out'
ver=$(cat "$S/VERSION")
check "its one version is VERSION ($ver)" \
	sh -c "[ \"\$(grep '^version ' recipe.out)\" = 'version $ver ' ]"
check "variants: fortran on by default, kmod off" \
	sh -c 'grep -q "^variant fortran .*default=True" recipe.out && grep -q "^variant kmod .*default=False" recipe.out'
for d in libdwarf elfutils numactl libpfm4 papi zydis json-c; do
	check "depends on $d (build and link)" \
		sh -c "grep -E '^depends_on $d(@[^ ]*)? *\$' recipe.out | grep -q ."
done
check "depends on protobuf-c, and fetches pprof's profile.proto as the Debian build reads it (its sha256)" \
	sh -c "grep -qx 'depends_on protobuf-c ' recipe.out &&
		grep '^resource  ' recipe.out | grep -q \"sha256=\$(sha256sum $proto | cut -d' ' -f1) \""
check "depends on a Fortran compiler only with +fortran" \
	grep -qx "depends_on fortran type=build when=+fortran" recipe.out

# the make calls per variant
calls() { grep "^make	$1	$2	" recipe.out | cut -f4- | tr '\t' ' '; }
for v in +fortran~kmod ~fortran~kmod +fortran+kmod ~fortran+kmod; do
	f=1; case $v in ~fortran*) f=0 ;; esac
	check "$v: build runs make programs PREFIX=<prefix> FORTRAN=$f" \
		sh -c "calls() { grep \"^make	\$1	\$2	\" recipe.out | cut -f4- | tr '\t' ' '; }
			calls '$v' build | grep -qx 'programs PREFIX=$PWD/p/$v FORTRAN=$f DWARF_CFLAGS=-I/spack/libdwarf/include PPROF_PROTO=$PWD/stage/pprof-proto/profile.proto'"
	n=$(calls "$v" install | wc -l)
	case $v in *+kmod) want=2 ;; *) want=1 ;; esac
	b=$(calls "$v" build | sed 's/^programs //'); i=$(calls "$v" install | head -n 1)
	check "$v: install runs make install with the same flags$([ $want = 2 ] && echo ', then install-dkms') ($n calls)" \
		test "$n" = "$want" -a "$i" = "install $b"
	[ $want = 2 ] && check "$v: ... install-dkms staged in the prefix (DESTDIR), its source in PREFIX/src" \
		test "$(calls "$v" install | sed -n 2p)" = "install-dkms DESTDIR=$PWD/p/$v DKMS_SRCDIR=/src UDEVRULESDIR=/lib/udev/rules.d MODPROBEDIR=/etc/modprobe.d"
	# run them against this tree's Makefile (already built: the build call has nothing to do)
	calls "$v" install | while read -r args; do
		eval "make -s -C \"\$S\" B=\"\$B\" $args"
	done > "inst$v.out" 2>&1
	p="$PWD/p/$v"
	if [ $f = 1 ]; then
		check_if "$v: the install has the library, the tools and the Fortran module" \
			'[ -f "$p/lib/libmemphis.so.0" ] && [ -x "$p/bin/memphis-report" ] && [ -f "$p/include/memphis/fortran/memphis.mod" ]'
	else
		check_if "$v: the install has the library and the tools, no Fortran" \
			'[ -f "$p/lib/libmemphis.so.0" ] && [ -x "$p/bin/memphis-report" ] && [ -z "$(find "$p" -name "*.mod" -o -name "libmemphis_f.a")" ]'
	fi
	case $v in
	*+kmod) check_if "$v: the module's source, dkms.conf, udev rule and modprobe.d under the prefix" \
		'[ -f "$p/src/memphismod-$ver/dkms.conf" ] && [ -f "$p/src/memphismod-$ver/memphismod.c" ] &&
		[ -f "$p/lib/udev/rules.d/70-memphismod.rules" ] && [ -f "$p/etc/modprobe.d/memphismod.conf" ] &&
		! grep -q "^options" "$p/etc/modprobe.d/memphismod.conf"' ;;
	*) check "$v: no module source" test ! -e "$p/src" ;;
	esac
done
done_testing

# waf helpers for ringsmb wscripts: one call per kind of target, so the
# per-directory wscripts stay a few lines each.
import os
from waflib.Configure import conf


def options(opt):
    pass


def configure(cnf):
    pass


@conf
def ringsmb_lib(bld, name, source, use='', **kw):
    """A static library per lib/* directory (never installed)."""
    return bld.stlib(target=name, source=source, use=use,
                     features='c cstlib', install_path=None, **kw)


def _link_into_bin(bld, name, tg):
    # Samba style: after 'make' the programs are in ./bin.  Only the
    # default build dir is linked; sanitizer/fuzz builds stay in their own.
    if bld.bldnode.name != 'build':
        return
    node = tg.path.get_bld().find_or_declare(name)
    bindir = os.path.join(bld.srcnode.abspath(), 'bin')

    def post(ctx):
        os.makedirs(bindir, exist_ok=True)
        dst = os.path.join(bindir, name)
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(node.abspath(), dst)
    bld.add_post_fun(post)


@conf
def ringsmb_binary(bld, name, source, use='', sbin=False, **kw):
    """An installed program (sbin/ for daemons), linked into ./bin."""
    path = '${PREFIX}/sbin' if sbin else '${PREFIX}/bin'
    tg = bld.program(target=name, source=source, use=use,
                     install_path=path, **kw)
    _link_into_bin(bld, name, tg)
    return tg


@conf
def ringsmb_test(bld, name, source, use='', **kw):
    """A cmocka unit test program: built, not installed; the test runner
    runs every tests/unit/test_* binary it finds in the build dir."""
    return bld.program(target=name, source=source, use=use + ' CMOCKA',
                       install_path=None, **kw)


@conf
def ringsmb_fuzz(bld, name, source, use='', **kw):
    """A libFuzzer harness, built only with --fuzz (clang)."""
    if not bld.env.FUZZ:
        return None
    return bld.program(target=name, source=source, use=use,
                       linkflags=['-fsanitize=fuzzer'],
                       install_path=None, **kw)

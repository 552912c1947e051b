#!/usr/bin/env python3
# ringsmb top-level waf build (see docs/architecture.md).
import os

APPNAME = 'ringsmb'
VERSION = '0.1.0'

top = '.'
out = 'build'

# Every directory with a wscript, in dependency order.
SUBDIRS = [
    'lib/util', 'lib/uring', 'lib/smb2', 'lib/dcerpc', 'lib/crypto',
    'lib/auth', 'lib/param', 'source3/modules', 'source3/rpc_server',
    'source3/smbd',
    'source3/utils', 'source3/utils/smb2bench',
    'tests/unit', 'tests/fuzz',
    # installed files besides the programs (docs/service.md)
    'packaging', 'docs/man',
]

PKGS = [
    # (pkg-config name, uselib name, Debian package)
    ('talloc', 'TALLOC', 'libtalloc-dev'),
    ('tevent', 'TEVENT', 'libtevent-dev'),
    ('liburing >= 2.3', 'URING', 'liburing-dev'),
    ('gnutls', 'GNUTLS', 'libgnutls28-dev'),
    ('nettle', 'NETTLE', 'nettle-dev'),
    ('libtasn1', 'TASN1', 'libtasn1-6-dev'),
    ('cmocka', 'CMOCKA', 'libcmocka-dev'),
]


def _subdirs(ctx):
    # RINGSMB_ONLY="lib/util lib/uring" limits the build to some directories
    # (handy while another directory does not build yet).
    only = os.environ.get('RINGSMB_ONLY')
    dirs = only.split() if only else SUBDIRS
    return [d for d in dirs
            if os.path.exists(os.path.join(ctx.path.abspath(), d, 'wscript'))]


def options(opt):
    opt.load('compiler_c')
    opt.load('ringsmb_waf', tooldir='buildtools')
    opt.add_option('--sanitize', action='store_true', default=False,
                   help='build with AddressSanitizer + UndefinedBehaviorSanitizer')
    opt.add_option('--tsan', action='store_true', default=False,
                   help='build with ThreadSanitizer (make tsan)')
    opt.add_option('--fuzz', action='store_true', default=False,
                   help='build libFuzzer harnesses (needs clang)')
    opt.add_option('--debug-build', action='store_true', default=False,
                   help='-O0 -g3')
    opt.add_option('--systemd-unit-dir', default='/usr/local/lib/systemd/system',
                   help='also install ringsmb.service here, where systemd '
                   'finds it ("" for nowhere) [default: %default]')


def configure(conf):
    # Samba style install prefix (sbin/, bin/, etc/, private/, var/)
    if conf.options.prefix in (None, '/usr/local'):
        conf.options.prefix = '/usr/local/ringsmb'
        conf.env.PREFIX = conf.options.prefix
    conf.load('compiler_c')
    conf.load('ringsmb_waf', tooldir='buildtools')
    for pkg, uselib, deb in PKGS:
        try:
            conf.check_cfg(package=pkg.split()[0],
                           atleast_version=(pkg.split()[2]
                                            if '>=' in pkg else None),
                           args='--cflags --libs', uselib_store=uselib,
                           msg='Checking for %s' % pkg)
        except conf.errors.ConfigurationError:
            conf.fatal('%s not found: install the Debian package %s '
                       '(buildtools/install-deps.sh installs everything)'
                       % (pkg, deb))
    conf.check_cc(header_name='linux/openat2.h', uselib_store='OPENAT2',
                  mandatory=True, msg='Checking for linux/openat2.h')
    conf.env.append_value('INCLUDES', [conf.path.abspath(),
                                       conf.bldnode.abspath()])
    opt = '-O0' if conf.options.debug_build else '-O2'
    conf.env.append_value('CFLAGS', [
        opt, '-g', '-std=gnu11', '-Wall', '-Wextra', '-Wno-unused-parameter',
        '-Wno-sign-compare', '-Wno-missing-field-initializers',
        '-Werror=implicit-function-declaration',
        '-Werror=incompatible-pointer-types', '-Werror=int-conversion',
        '-Werror=return-type', '-D_GNU_SOURCE', '-fno-strict-aliasing',
    ])
    if conf.options.sanitize:
        san = ['-fsanitize=address,undefined', '-fno-omit-frame-pointer',
               '-fno-sanitize-recover=undefined']
        conf.env.append_value('CFLAGS', san)
        conf.env.append_value('LINKFLAGS', san)
        conf.env.SANITIZE = True
    if conf.options.tsan:
        tsan = ['-fsanitize=thread', '-fno-omit-frame-pointer']
        conf.env.append_value('CFLAGS', tsan)
        conf.env.append_value('LINKFLAGS', tsan)
        conf.env.TSAN = True
    conf.env.FUZZ = bool(conf.options.fuzz)
    if conf.env.FUZZ:
        conf.env.append_value('CFLAGS', ['-fsanitize=fuzzer-no-link'])
    conf.env.VERSION = VERSION
    conf.env.SYSTEMD_UNIT_DIR = conf.options.systemd_unit_dir
    conf.define('RINGSMB_VERSION', VERSION)
    conf.env.append_value('DEFINES', ['RINGSMB_PREFIX="%s"' % conf.env.PREFIX])
    conf.write_config_header('config.h')


def build(bld):
    bld.recurse(_subdirs(bld))
    # Samba-style layout under PREFIX: sbin/ bin/ etc/ private/ var/
    # (packaging/wscript), lib/systemd/system/, share/man/ (docs/man)
    bld.install_files('${PREFIX}/share/doc/ringsmb',
                      ['README.md'] + bld.path.ant_glob('docs/*.md'))

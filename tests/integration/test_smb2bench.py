"""smb2bench (issue 14), the fio-speaking load client, against a running
server: sequential write, read and random read with -N and with a user
(signed and encrypted), fio's JSON layout, the file's bytes checked by
sha256 against the --verify=pattern data, and the same bytes as
smbclient both ways (smbclient gets what smb2bench wrote, smb2bench
reads what smbclient put).  Every case that needs a server runs against
the target and against Debian's Samba when its smbd is installed."""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

import accounts as accounts_mod
from conftest import (REPO, SAMBA_SMBD, SMBCLIENT, TARGET, SambaServer,
                      finish_server, make_scratch_dir, make_server,
                      ringsmb_binary, sha256_file)

MIB = 1 << 20
SEED = 0x5eed           # smb2bench's default --randseed
M64 = (1 << 64) - 1
USER, PASSWORD = accounts_mod.name("alice"), "Bench-pw-14"


def smb2bench_binary():
    """build*/source3/utils/smb2bench/smb2bench next to the smbd under
    test, else <repo>/bin/smb2bench."""
    smbd = ringsmb_binary()
    cand = smbd.parent.parent / "utils" / "smb2bench" / "smb2bench"
    if smbd.parent.name == "smbd" and cand.exists():
        return cand
    return REPO / "bin" / "smb2bench"


def pattern(size, seed=SEED):
    """What --verify=pattern writes: at offset o the little-endian
    splitmix64(seed ^ o), one 8-byte word at a time."""
    out = bytearray(size)
    for o in range(0, size - size % 8, 8):
        x = ((seed ^ o) + 0x9e3779b97f4a7c15) & M64
        x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
        x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
        struct.pack_into("<Q", out, o, x ^ (x >> 31))
    return bytes(out)


def bench(srv, *args, share="bench", creds=("-N",), check=True):
    p = subprocess.run([str(smb2bench_binary()),
                        "//127.0.0.1/%s" % share, "-p", str(srv.port)] +
                       list(creds) + ["--output-format=json"] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    if check:
        assert p.returncode == 0, p.stderr.decode(errors="replace")
        return json.loads(p.stdout)
    return p


def smbclient(srv, cmd, share="bench", creds="%"):
    p = subprocess.run([SMBCLIENT, "//127.0.0.1/%s" % share, "-p",
                        str(srv.port), "-U", creds, "-m", "SMB3_11",
                        "-c", cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    assert p.returncode == 0, p.stdout.decode(errors="replace")


def one_job(out):
    assert len(out["jobs"]) == 1
    job = out["jobs"][0]
    assert job["error"] == 0, job["error_text"]
    return job


def run_write_read(srv, wdir, creds=("-N",), extra=(), name="seq.bin"):
    size = 8 * MIB
    job = one_job(bench(srv, "--rw=write", "--bs=1m", "--iodepth=4",
                        "--size=8m", "--verify=pattern",
                        "--filename=" + name, *extra, creds=creds))
    assert job["write"]["io_bytes"] == size
    assert job["write"]["total_ios"] == 8
    assert job["read"]["io_bytes"] == 0        # the read-back is not I/O
    assert job["verify_bytes"] == size         # ... but it is checked
    assert sha256_file(wdir / name) == hashlib.sha256(
        pattern(size)).hexdigest()
    job = one_job(bench(srv, "--rw=read", "--bs=256k", "--iodepth=8",
                        "--size=8m", "--verify=pattern",
                        "--filename=" + name, *extra, creds=creds))
    assert job["read"]["io_bytes"] == size
    assert job["verify_errors"] == 0
    assert job["verify_bytes"] == size
    job = one_job(bench(srv, "--rw=randread", "--bs=4k", "--iodepth=16",
                        "--size=8m", "--verify=pattern",
                        "--filename=" + name, *extra, creds=creds))
    rd = job["read"]
    assert rd["io_bytes"] == size
    assert rd["total_ios"] == size // 4096
    assert rd["iops"] > 0 and rd["bw_bytes"] > 0 and rd["runtime"] >= 0
    pct = rd["clat_ns"]["percentile"]
    assert set(("1.000000", "50.000000", "99.000000", "99.990000")) <= \
        set(pct)
    assert 0 < pct["50.000000"] <= pct["99.000000"] <= rd["clat_ns"]["max"]
    assert job["usr_cpu"] >= 0 and job["sys_cpu"] >= 0
    # unchecked reads: payloads dropped in the kernel, or copied
    for copy in ((), ("--read-copy",)):
        job = one_job(bench(srv, "--rw=read", "--bs=1m", "--iodepth=4",
                            "--filename=" + name, *(extra + copy),
                            creds=creds))
        assert job["read"]["io_bytes"] == size
        assert job["read"]["total_ios"] == 8


def start_server(kind, share_tree, extra_global, shares):
    """ringsmb (or whatever RINGSMB_TARGET says) or Debian's Samba."""
    if kind == "target":
        return make_server(share_tree, "default", extra_global, shares)
    if TARGET == "samba":
        pytest.skip("the target is Samba already")
    if not Path(SAMBA_SMBD).exists():
        pytest.skip("Debian's Samba smbd is not installed")
    return SambaServer(share_tree, "default", extra_global, shares).start()


@pytest.fixture(scope="module", params=("target", "samba"))
def bserver(request, share_tree):
    """A guest server with a writable [bench] share: the target and
    Debian's Samba."""
    base, d = make_scratch_dir()
    srv = start_server(request.param, share_tree, None,
                       [{"name": "bench", "path": d, "read_only": False}])
    srv.wdir = d
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def test_guest_write_read_randread(bserver):
    run_write_read(bserver, bserver.wdir)


def test_same_bytes_as_smbclient(bserver, tmp_path):
    size = 3 * MIB + 4096
    # smbclient gets what smb2bench wrote
    one_job(bench(bserver, "--rw=write", "--bs=64k", "--iodepth=8",
                  "--size=%d" % size, "--verify=pattern",
                  "--filename=by_bench.bin"))
    got = tmp_path / "got.bin"
    smbclient(bserver, "get by_bench.bin %s" % got)
    want = hashlib.sha256(pattern(size)).hexdigest()
    assert sha256_file(got) == want
    # smb2bench reads what smbclient put, byte for byte
    src = tmp_path / "src.bin"
    src.write_bytes(pattern(size))
    smbclient(bserver, "put %s by_smbclient.bin" % src)
    job = one_job(bench(bserver, "--rw=read", "--bs=1m", "--iodepth=4",
                        "--verify=pattern", "--filename=by_smbclient.bin"))
    assert job["read"]["io_bytes"] == size      # --size: the file's
    assert job["verify_errors"] == 0
    # and a changed byte is caught
    data = bytearray(pattern(size))
    data[size - 5] ^= 0x40
    src.write_bytes(bytes(data))
    smbclient(bserver, "put %s changed.bin" % src)
    p = bench(bserver, "--rw=read", "--bs=1m", "--verify=pattern",
              "--filename=changed.bin", check=False)
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["jobs"][0]["verify_errors"] == 1
    assert "offset %d" % (size - 5) in out["jobs"][0]["error_text"]


def test_numjobs_files_and_layout(bserver):
    out = bench(bserver, "--name=nj", "--rw=read", "--bs=128k",
                "--size=1m", "--numjobs=2", "--iodepth=2",
                "--verify=pattern")
    assert [j["jobname"] for j in out["jobs"]] == ["nj", "nj"]
    for n, job in enumerate(out["jobs"]):
        assert job["error"] == 0, job["error_text"]
        assert job["read"]["io_bytes"] == MIB
        # laid out first, as fio does, with the pattern
        assert (bserver.wdir / ("nj.%d.0" % n)).stat().st_size == MIB
    assert out["smb2bench"]["bytes"] == 2 * MIB
    assert out["smb2bench"]["client_cpu_s_per_gib"] > 0


def test_time_based_randrw(bserver):
    job = one_job(bench(bserver, "--rw=randrw", "--rwmixread=50",
                        "--bs=4k", "--size=1m", "--iodepth=8",
                        "--runtime=1", "--time_based", "--verify=pattern",
                        "--filename=tb.bin"))
    assert 900 <= job["read"]["runtime"] <= 5000
    assert job["read"]["io_bytes"] > 0 and job["write"]["io_bytes"] > 0


def test_jobfile(bserver, tmp_path):
    f = tmp_path / "two.fio"
    f.write_text("[global]\nbs=64k\nsize=512k\niodepth=2\n"
                 "[w]\nrw=write\nverify=pattern\nfilename=jf.bin\n"
                 "[r]\nrw=randread\n")
    out = bench(bserver, str(f))
    assert [j["jobname"] for j in out["jobs"]] == ["w", "r"]
    assert out["jobs"][0]["write"]["io_bytes"] == 512 * 1024
    assert out["jobs"][1]["read"]["io_bytes"] == 512 * 1024


@pytest.mark.parametrize("check", ["--verify=pattern", "--read-copy", ""])
def test_interim_pending_responses_and_reordering(check):
    """STATUS_PENDING interim responses carry the credits, the finals
    arrive in reverse order: every byte still lands (checked, copied, or
    dropped with MSG_TRUNC)."""
    from fake_smb2 import FakeServer
    size = MIB
    fake = FakeServer(pattern(size))
    p = subprocess.run([str(smb2bench_binary()), "//127.0.0.1/fake",
                        "-p", str(fake.port), "-N", "--rw=read",
                        "--bs=64k", "--iodepth=4", "--filename=f.bin",
                        "--output-format=json"] + ([check] if check else []),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    fake.thread.join(10)
    assert fake.error is None, fake.error
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    job = one_job(json.loads(p.stdout))
    assert job["read"]["io_bytes"] == size
    assert job["read"]["total_ios"] == 16
    assert fake.interims == 16
    assert fake.reordered > 0


def test_metadata_modes(bserver):
    """create, stat, listdir and connect: operations counted as fio
    counts I/Os (create as writes of --bs bytes, the others as reads),
    each file of the folder really there."""
    for d in ("meta", "big"):
        # Samba's anonymous session may not add files to a folder it made
        (bserver.wdir / d).mkdir(mode=0o777, exist_ok=True)
        os.chmod(bserver.wdir / d, 0o777)
    out = bench(bserver, "--rw=create", "--nrfiles=50", "--bs=4k",
                "--filename=meta")
    job = one_job(out)
    assert job["write"]["total_ios"] == 50
    assert job["write"]["io_bytes"] == 50 * 4096
    assert job["write"]["iops"] > 0
    assert out["smb2bench"]["ops"] == 50
    files = sorted((bserver.wdir / "meta").iterdir())
    assert len(files) == 50 and all(f.stat().st_size == 4096
                                     for f in files)
    assert (bserver.wdir / "meta" / "f7").read_bytes() == pattern(4096)
    job = one_job(bench(bserver, "--rw=stat", "--nrfiles=50",
                        "--filename=meta"))
    assert job["read"]["total_ios"] == 50 and job["read"]["io_bytes"] == 0
    pct = job["read"]["clat_ns"]["percentile"]
    assert 0 < pct["50.000000"] <= pct["99.000000"]
    # listdir lays out its own folder; a listing is one operation
    job = one_job(bench(bserver, "--rw=listdir", "--nrfiles=300",
                        "--filename=big", "--time_based", "--runtime=1"))
    n = job["read"]["total_ios"]
    assert n >= 1
    assert job["entries"] == n * 302            # with "." and ".."
    job = one_job(bench(bserver, "--rw=connect", "--nrfiles=20"))
    assert job["read"]["total_ios"] == 20


def test_stat_compound(bserver):
    """--compound: CREATE + QUERY_INFO + CLOSE in one related compound,
    each response taken apart and its status and output checked
    (against ringsmb and Samba alike)."""
    d = bserver.wdir / "cmeta"
    d.mkdir(mode=0o777, exist_ok=True)
    os.chmod(d, 0o777)
    out = bench(bserver, "--rw=stat", "--nrfiles=40", "--compound",
                "--filename=cmeta")
    job = one_job(out)
    assert job["read"]["total_ios"] == 40
    assert len(list(d.iterdir())) == 40
    assert out["smb2bench"]["ops"] == 40


@pytest.mark.parametrize("args,name", [
    (("--channels=2",), "--channels"),         # -N: a binding needs keys
    (("--channels=0",), "--channels"),
    (("--ioengine=libaio",), "--ioengine"),
    (("--verify=md5",), "--verify"),
    (("--rw=stat", "--iodepth=4"), "--iodepth"),
    (("--rw=create", "--verify=pattern"), "--verify"),
    (("--nrfiles=0",), "--nrfiles"),
    (("--rw=read", "--compound"), "--compound"),
])
def test_unsupported_refused_by_name(bserver, args, name):
    p = bench(bserver, *args, check=False)
    assert p.returncode == 1
    assert name in p.stderr.decode()
    assert p.stdout == b""


def test_missing_file_without_size_fails_cleanly(bserver):
    p = bench(bserver, "--rw=read", "--filename=nothere.bin", check=False)
    assert p.returncode == 1
    assert b"nothere.bin" in p.stderr


# ------------------------------------------------------------ with a user

@pytest.fixture(scope="module", params=("target", "samba"))
def user_server(request, share_tree, accounts):
    """A server that requires signing, with one user."""
    base, d = make_scratch_dir()
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-"))
    extra = {"server signing": "mandatory"}
    if request.param == "target" and TARGET == "ringsmb":
        extra["smb passwd file"] = str(passwd / "smbpasswd")
    srv = start_server(request.param, share_tree, extra,
                       [{"name": "bench", "path": d, "read_only": False}])
    accounts_mod.add_smb_user(srv, "alice", PASSWORD)
    srv.wdir = d
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(passwd, ignore_errors=True)


@pytest.mark.parametrize("extra", [
    (), ("-m", "SMB3_02"), ("-m", "SMB2_10"), ("--encrypt",),
    ("--encrypt=aes-256-ccm",)], ids=["3.1.1-signed", "3.0.2-signed",
                                      "2.1-signed", "aes-128-gcm",
                                      "aes-256-ccm"])
def test_user_write_read_randread(user_server, extra):
    name = "u%s.bin" % "".join(c for c in "".join(extra) if c.isalnum())
    run_write_read(user_server, user_server.wdir,
                   creds=("-U", "%s%%%s" % (USER, PASSWORD)), extra=extra,
                   name=name)
    st = (user_server.wdir / name).stat()
    assert st.st_uid == accounts_mod.Account("alice").uid   # the user's


@pytest.mark.parametrize("extra", [(), ("-m", "SMB3_02"), ("--encrypt",)],
                         ids=["3.1.1-signed", "3.0.2-signed", "aes-128-gcm"])
def test_user_stat_compound(user_server, extra):
    """A compound's responses each carry their own signature (or the
    whole is sealed): smb2bench checks them one by one."""
    d = user_server.wdir / ("cst%s" % "".join(
        c for c in "".join(extra) if c.isalnum()))
    d.mkdir(mode=0o777, exist_ok=True)
    os.chmod(d, 0o777)
    job = one_job(bench(user_server, "--rw=stat", "--nrfiles=30",
                        "--compound", "--filename=" + d.name, *extra,
                        creds=("-U", "%s%%%s" % (USER, PASSWORD))))
    assert job["read"]["total_ios"] == 30


@pytest.mark.parametrize("extra", [(), ("-m", "SMB3_02"), ("--encrypt",)],
                         ids=["3.1.1-signed", "3.0.2-signed", "aes-128-gcm"])
def test_user_channels(user_server, extra):
    """--channels=2: a second connection bound to the session carries
    requests (both channels counted), every byte checked."""
    creds = ("-U", "%s%%%s" % (USER, PASSWORD))
    chan = ("--channels=2", "--channel-addrs=127.0.0.1") + extra
    name = "mc%s.bin" % "".join(c for c in "".join(extra) if c.isalnum())
    out = bench(user_server, "--rw=write", "--bs=64k", "--iodepth=8",
                "--size=4m", "--verify=pattern", "--filename=" + name,
                *chan, creds=creds)
    job = one_job(out)
    assert job["verify_bytes"] == 4 * MIB
    assert [c["requests"] > 0 for c in job["channels"]] == [True, True]
    assert sha256_file(user_server.wdir / name) == hashlib.sha256(
        pattern(4 * MIB)).hexdigest()
    out = bench(user_server, "--rw=randread", "--bs=4k", "--iodepth=16",
                "--size=4m", "--verify=pattern", "--filename=" + name,
                *chan, creds=creds)
    job = one_job(out)
    assert job["read"]["io_bytes"] == 4 * MIB
    chans = out["smb2bench"]["channels"]
    assert [c["address"] for c in chans] == ["127.0.0.1", "127.0.0.1"]
    assert sum(c["requests"] for c in chans) == 1024
    assert min(c["requests"] for c in chans) > 100
    assert not any(c["lost"] for c in chans)
    # fio's text summary names the channels too
    p = subprocess.run([str(smb2bench_binary()), "//127.0.0.1/bench",
                        "-p", str(user_server.port), *creds, "--rw=read",
                        "--bs=64k", "--filename=" + name, *chan],
                       stdout=subprocess.PIPE, timeout=120)
    assert p.returncode == 0
    assert b"channel 1    : 127.0.0.1, " in p.stdout
    assert b"CPU per operation: client" in p.stdout


def test_channels_refused_on_smb2(user_server):
    p = bench(user_server, "--channels=2", "-m", "SMB2_10",
              creds=("-U", "%s%%%s" % (USER, PASSWORD)), check=False)
    assert p.returncode == 1
    assert b"--channels needs SMB 3.x" in p.stderr


def test_user_bad_password(user_server):
    p = bench(user_server, "--size=1m",
              creds=("-U", "%s%%wrong" % USER), check=False)
    assert p.returncode == 1
    assert b"LOGON_FAILURE" in p.stderr


def test_unknown_user_made_guest_is_refused(user_server):
    """map to guest = Bad User turns an unknown user into guest: a bench
    asked for as a user must not quietly run unsigned as guest (the
    Samba rows of the benchmark did, when its user was missing)."""
    p = bench(user_server, "--size=1m", "--filename=guest-fallback.bin",
              creds=("-U", "nosuchbenchuser%whatever"), check=False)
    assert p.returncode == 1
    assert b"session a guest one" in p.stderr
    assert not (user_server.wdir / "guest-fallback.bin").exists()

#!/usr/bin/env python3
"""The least server CPU a 1 MiB signed or encrypted get or put can take
on this machine: no SMB at all, only the per-byte work every server does
for it, with the same gnutls calls and the same kernel paths.

  get: pread 1 MiB of a page-cache file into a buffer, AES-128-GCM it in
       place (encrypt) or AES-128-GMAC it (sign), send it over a loopback
       TCP connection;
  put: receive 1 MiB, AES-128-GCM decrypt it in place (encrypt) or
       GMAC it (sign), pwrite it into a page-cache file.
  the client of a get: receive 1 MiB and GMAC it (signed) or only
       receive it: the least a client that checks what it gets spends
       (smb2bench's own CPU per GiB is compared with this).

The "server" is one process doing that loop; the peer is another that
only sends or drains (its CPU is not counted).  CPU is the server
process's user + system time per GiB (getrusage), so it includes the
loopback softirq the sending side runs, as a real server's does.

  tests/bench/floor.py [--gib N] [--dir /dev/shm] [--rounds N]

Used with a same-run measurement of both servers (docs/performance.md,
"What 2 cores allow"): (Samba server + client) / (floor + client) is
the best ratio any server could reach there, client CPU included.
"""
import argparse
import ctypes
import os
import resource
import socket
import sys
import tempfile
import time

MIB = 1 << 20
GNUTLS_CIPHER_AES_128_GCM = 10


class Iovec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]


class Datum(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('size', ctypes.c_uint)]


class Aes:
    """AES-128-GCM through gnutls, as lib/crypto calls it (in place, v2)."""

    def __init__(self):
        self.lib = ctypes.CDLL('libgnutls.so.30')
        key = (ctypes.c_ubyte * 16)(*range(16))
        self.h = ctypes.c_void_p()
        d = Datum(ctypes.cast(key, ctypes.c_void_p), 16)
        if self.lib.gnutls_aead_cipher_init(
                ctypes.byref(self.h), GNUTLS_CIPHER_AES_128_GCM,
                ctypes.byref(d)) != 0:
            raise RuntimeError('gnutls_aead_cipher_init failed')
        self.nonce = (ctypes.c_ubyte * 12)()
        self.tag = (ctypes.c_ubyte * 16)()
        self.aad = (ctypes.c_ubyte * 32)()

    def run(self, buf, n, op):
        """op: encrypt, decrypt (tag check fails; the work is the same)
        or gmac (everything authenticated, nothing encrypted)."""
        addr = ctypes.addressof(buf)
        data = Iovec(addr, n)
        aad = Iovec(ctypes.addressof(self.aad), 32)
        tag_len = ctypes.c_size_t(16)
        if op == 'gmac':
            both = (Iovec * 2)(aad, data)
            self.lib.gnutls_aead_cipher_encryptv2(
                self.h, self.nonce, 12, both, 2, None, 0, self.tag,
                ctypes.byref(tag_len))
        elif op == 'encrypt':
            self.lib.gnutls_aead_cipher_encryptv2(
                self.h, self.nonce, 12, ctypes.byref(aad), 1,
                ctypes.byref(data), 1, self.tag, ctypes.byref(tag_len))
        else:
            self.lib.gnutls_aead_cipher_decryptv2(
                self.h, self.nonce, 12, ctypes.byref(aad), 1,
                ctypes.byref(data), 1, self.tag, ctypes.c_size_t(16))


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def serve(sock, path, direction, op, total):
    """The server's loop; returns CPU seconds."""
    aes = Aes()
    buf = (ctypes.c_ubyte * MIB)()
    view = memoryview(buf).cast('B')
    fd = os.open(path, os.O_RDWR)
    size = os.fstat(fd).st_size
    c0 = cpu()
    done = 0
    while done < total:
        off = done % size
        if direction == 'get':
            os.preadv(fd, [view], off)
            if op != 'none':
                aes.run(buf, MIB, op)
            sock.sendall(view)
        else:
            got = 0
            while got < MIB:
                n = sock.recv_into(view[got:], MIB - got)
                if n == 0:
                    raise RuntimeError('peer went away')
                got += n
            if op != 'none':
                aes.run(buf, MIB, op)
            if direction == 'put':
                os.pwritev(fd, [view], off)
        done += MIB
    c1 = cpu()
    os.close(fd)
    return c1 - c0


def peer(sock, direction, total):
    buf = bytearray(MIB)
    view = memoryview(buf)
    done = 0
    while done < total:
        if direction == 'get':
            n = sock.recv_into(view, MIB)
            if n == 0:
                return
            done += n
        else:
            sock.sendall(view)
            done += MIB


def one(path, direction, op, total):
    """Server CPU seconds per GiB and GiB/s for one direction and op."""
    lsock = socket.socket()
    lsock.bind(('127.0.0.1', 0))
    lsock.listen(1)
    port = lsock.getsockname()[1]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        lsock.close()
        s = socket.create_connection(('127.0.0.1', port))
        try:
            secs = serve(s, path, direction, op, total)
            os.write(w, repr(secs).encode())
        finally:
            s.close()
            os._exit(0)
    os.close(w)
    s, _ = lsock.accept()
    lsock.close()
    t0 = time.monotonic()
    peer(s, direction, total)
    s.close()
    secs = float(os.read(r, 64).decode())
    elapsed = time.monotonic() - t0
    os.waitpid(pid, 0)
    os.close(r)
    gib = total / (1 << 30)
    return secs / gib, gib / elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--gib', type=float, default=1.0)
    ap.add_argument('--dir', default='/dev/shm')
    ap.add_argument('--rounds', type=int, default=3)
    a = ap.parse_args()
    total = int(a.gib * (1 << 30)) // MIB * MIB
    d = tempfile.mkdtemp(prefix='floor-', dir=a.dir)
    path = os.path.join(d, 'data')
    try:
        with open(path, 'wb') as f:
            for _ in range(256):
                f.write(os.urandom(MIB))
        cells = [('get', 'gmac', 'signed get'),
                 ('get', 'encrypt', 'encrypted get'),
                 ('put', 'gmac', 'signed put'),
                 ('put', 'decrypt', 'encrypted put'),
                 ('get', 'none', 'plain get (copy)'),
                 ('put', 'none', 'plain put (copy)'),
                 ('recv', 'gmac', 'client of a signed get (receive, GMAC)'),
                 ('recv', 'none', 'client of a plain get (receive)')]
        results = {c[2]: [] for c in cells}
        for _ in range(a.rounds):
            for direction, op, name in cells:
                results[name].append(one(path, direction, op, total))
        print('| per-byte work only | server CPU s/GiB (min-max) | GiB/s |')
        print('|---|---:|---:|')
        for _, _, name in cells:
            rs = sorted(results[name])
            mid = rs[len(rs) // 2]
            print('| %s | %.3f (%.3f-%.3f) | %.2f |' % (
                name, mid[0], rs[0][0], rs[-1][0], mid[1]))
    finally:
        os.unlink(path)
        os.rmdir(d)
    return 0


if __name__ == '__main__':
    sys.exit(main())

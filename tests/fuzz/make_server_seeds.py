#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_server (tests/fuzz/corpus/server/).

Each seed is a program in the encoding fuzz_server.c describes: a flags
byte (bit 0: io_uring off), then steps, each an op byte (kind | 0x20 no
credit check | 0x40 mutate | 0x80 do not wait) and the operands the
kind's build_* function reads, in that order.  A mutated step ends with
the mutation: a byte (bits 0-1: 1-4 changes; bit 7: after encryption),
then per change a u16 position in the frame (its 4-byte NBT header
included) and the new byte.  The helpers below spell
those operands out, so this file is also the byte-by-byte reference.
Run it from anywhere; it rewrites the seeds it names and leaves any
other file (inputs the fuzzer found) alone.
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   'corpus', 'server')

(NEGOTIATE, SESSION_SETUP, TREE_CONNECT, CREATE, READ, WRITE, CLOSE, FLUSH,
 LOCK, QUERY_INFO, SET_INFO, QUERY_DIRECTORY, CHANGE_NOTIFY, IOCTL, ECHO,
 CANCEL, COMPOUND, LOGOFF, TREE_DISCONNECT, OPLOCK_ACK, SELECT, RAW, TICK,
 DISCONNECT) = range(24)
# outside the kinds' modulo: the connection the next steps use
CHANNEL = 0x1F

MUTATE = 0x40
NOWAIT = 0x80

# names in fz_names[]
N_EMPTY, N_A, N_B, N_DIR, N_DIRC, N_STREAM = 0, 1, 2, 3, 4, 5
N_SRVSVC = 10


def u16(v):
    return struct.pack('<H', v)


def u32(v):
    return struct.pack('<I', v)


# negotiate dialect mask bits
D_202, D_210, D_300, D_302, D_311 = 1, 2, 4, 8, 0x10
# negotiate ctx: encryption context with the cipher first in bits 1-2,
# signing context with the algorithm first in bits 4-5
CTX_CCM, CTX_GCM = 0x01, 0x03
CTX_HMAC, CTX_CMAC, CTX_GMAC = 0x08, 0x18, 0x28


def negotiate(mask=0x1F, secmode=1, caps=0x47, ctx=0x09, credits=63):
    # caps 0x4F adds MULTI_CHANNEL, which a binding needs
    # mask, secmode, caps, ctx, credit ask - 1, ClientGuid, [salt]
    b = bytes([NEGOTIATE, mask, secmode, caps, ctx, credits - 1])
    b += b'G' * 16
    if mask & 0x10:
        b += b'S' * 32
    return b


def session(guest=True, slot=0, stop_early=False, reauth=False):
    mode = (1 if guest else 0) | (8 if stop_early else 0) | (slot << 4) | \
        (4 if reauth else 0)
    return bytes([SESSION_SETUP, mode])


def user_session(slot=0, wrong_password=False, reauth=False):
    # bit 7: the user in the harness's smbpasswd (keys: signing, sealing)
    mode = 0x80 | (1 if wrong_password else 0) | (slot << 4) | \
        (4 if reauth else 0)
    return bytes([SESSION_SETUP, mode])


def bind(slot=0):
    # bits 1 and 2: BINDING, for the session in the current slot; bit 7
    # the user (the legs signed with the session's key)
    return bytes([SESSION_SETUP, 0x86 | (slot << 4)])


def channel(i):
    # later steps go to connection i (the second opened on first use);
    # sessions, trees and files stay the client's, shared by both
    return bytes([CHANNEL, i])


# tree connect shares: index | (index & 4) << 3 in the operand
S_SHARE, S_NOOP, S_IPC, S_MISSING, S_CRYPT = 0, 1, 2, 3, 4


def tree(share=S_SHARE, slot=0):
    # share: 0 share, 1 noop, 2 IPC$, 3 a missing one, 4 crypt (smb
    # encrypt = required), 5 CRYPT by address, 6 ipc$, 7 an empty name
    return bytes([TREE_CONNECT, (share & 3) | ((share & 4) << 3) |
                  (slot << 2)])


def select(session=0, tree=0, plaintext=False, unsigned=False):
    # bit 3: send in plaintext on an encrypted session or tree;
    # bit 7: do not sign
    return bytes([SELECT, session | (tree << 4) | (8 if plaintext else 0) |
                  (0x80 if unsigned else 0)])


def mutation(*changes, after_encryption=False):
    # changes: (position in the frame with its NBT header, new byte)
    b = bytes([(len(changes) - 1) | (0x80 if after_encryption else 0)])
    for pos, val in changes:
        b += u16(pos) + bytes([val])
    return b


# where a lone request's Signature is in the frame: NBT + 0x30
SIG_POS = 4 + 0x30


def create_ops(name, access=0, disp=3, opts=0x40, ctx=0, oplock=0,
               directory=False, ctx_bytes=b''):
    # a: access index | disposition << 3; opts; ctx bits; fl
    a = access | (disp << 3)
    fl = oplock | (0x40 if directory else 0)
    return bytes([a, opts, ctx, fl, name]) + ctx_bytes


def create(name, op=CREATE, **kw):
    return bytes([op]) + create_ops(name, **kw)


def write(slot=0, offset=0, data=b'hello fuzz server' * 4, op=WRITE):
    assert len(data) % 4 == 0 and len(data) < 512
    return bytes([op, 0, len(data) // 4]) + u16(offset) + bytes([slot]) + data


def big_write(slot=0, units=8, op=WRITE):
    return bytes([op, 0, 0x80 | units]) + u16(0) + bytes([slot])


def read(slot=0, length=64, offset=0, big=False, op=READ):
    return bytes([op, 1 if big else 0]) + u16(length) + u16(offset) + \
        bytes([slot])


def close(slot=0, op=CLOSE):
    return bytes([op, 1, slot])


def query_info(slot=0, cls=18, op=QUERY_INFO):
    return bytes([op, 0, 0, cls, slot])


def lock(slot=0, offset=0, length=10, flags=0x12, op=LOCK):
    return bytes([op, 0, slot, flags]) + u16(offset) + u16(length)


def query_dir(slot=0, op=QUERY_DIRECTORY):
    return bytes([op, 0, 1, slot])


def notify(slot=0, op=CHANGE_NOTIFY):
    return bytes([op, 1, slot])


def ioctl(ctl_index, slot=0xFF, data=b'', max_out=4096, op=IOCTL):
    return bytes([op, ctl_index, len(data), slot]) + data + u16(max_out)


def set_info_rename(slot, name):
    # x = class index 1 (RENAME), type 1, canned buffer
    return bytes([SET_INFO, 1, slot, 1, name])


def set_info_delete(slot):
    return bytes([SET_INFO, 2, slot, 1])


def set_info_basic(slot, create=0, access=0, write=0, change=0, attrs=0):
    # x = class index 0 (BASIC), type 1, the 40 bytes canned
    return bytes([SET_INFO, 0, slot]) + struct.pack(
        '<QQQQII', create, access, write, change, attrs, 0)


def compound(parts, related=True):
    # parts: (kind index in the compound table, operands)
    x = (len(parts) - 2) | (0x80 if related else 0)
    b = bytes([COMPOUND, x])
    for k, ops in parts:
        b += bytes([k]) + ops
    return b


# compound kind indexes (step_compound's kinds[])
C_CREATE, C_READ, C_WRITE, C_CLOSE, C_QUERY_INFO = 0, 1, 2, 3, 4


def smb1_negprot():
    dialects = b''.join(b'\x02' + d + b'\x00'
                        for d in (b'NT LM 0.12', b'SMB 2.002', b'SMB 2.???'))
    hdr = b'\xffSMB' + bytes([0x72]) + u32(0) + bytes([0x18]) + \
        u16(0xC853) + u16(0) + b'\x00' * 8 + u16(0) + u16(0xFFFF) + \
        u16(0xFEFF) + u16(0) + u16(0)
    return hdr + b'\x00' + u16(len(dialects)) + dialects


SMB1_NEGPROT = smb1_negprot()

START = negotiate() + session() + tree()
IO = create(N_B) + write() + read() + close()

SEEDS = {
    'io-uring': b'\x00' + START + create(N_B) + write() + read() +
    query_info() + lock() + close() + bytes([TREE_DISCONNECT, LOGOFF]),
    'plain': b'\x01' + START + create(N_B) + write() + read() +
    query_info() + lock() + close() + bytes([TREE_DISCONNECT, LOGOFF]),
    'dir-notify-cancel': b'\x00' + START +
    create(N_DIR, access=1, opts=0x01, directory=True) +
    bytes([CHANGE_NOTIFY | NOWAIT, 1, 0]) + bytes([CANCEL, 0]) +
    query_dir() + create(N_DIRC, opts=0x40) + close(1) + close(0),
    'compound': b'\x00' + START + compound([
        (C_CREATE, create_ops(N_A)),
        (C_WRITE, write(slot=0xFF)[1:]),
        (C_READ, read(slot=0xFF)[1:]),
        (C_CLOSE, close(slot=0xFF)[1:]),
    ]),
    'ipc-pipe': b'\x01' + START[:-2] + tree(share=2) +
    create(N_SRVSVC, access=0, disp=1) +
    ioctl(12, slot=0, data=bytes.fromhex(
        '05000b03100000004800000001000000b810b810000000000100000000000100'
        'c84f324b7016d30112785a47bf6ee18803000000045d888aeb1cc9119fe808002b'
        '10486002000000')[:72]) + close(),
    'oplock-break': b'\x00' + START + create(N_B, oplock=3) +
    create(N_B, oplock=3) + bytes([OPLOCK_ACK, 0]) +
    close(0) + close(1),
    'durable-disconnect': b'\x00' + START +
    create(N_A, ctx=0x18, ctx_bytes=bytes([30, 2]) + b'C' * 16 +
           b'K' * 16 + bytes([7, 0, 1]), oplock=0x80) +
    write() + bytes([DISCONNECT, 0]),
    'anon-noop-big': b'\x00' + negotiate(mask=0x04) +
    session(guest=False) + tree(share=1) + create(N_B) + big_write() +
    read(length=4096, big=True) + close(),
    'smb1-negprot': b'\x00' + bytes([RAW, 1]) + u16(len(SMB1_NEGPROT)) +
    SMB1_NEGPROT + negotiate(),
    'rename-delete': b'\x01' + START + create(N_A, access=3) +
    set_info_rename(0, N_B) + set_info_delete(0) + close(),
    'lock-contend': b'\x00' + START + create(N_B) +
    create(N_B, access=0) + lock(slot=0, flags=0x02) +
    lock(slot=1, flags=0x02, op=LOCK | NOWAIT) + bytes([CANCEL, 0]) +
    lock(slot=0, flags=0x04) + bytes([TICK, 2]) + close(0) + close(1),
    # found by the fuzzer: an anonymous re-authentication of a session
    # with an IPC$ tree connect dereferenced its NULL VFS
    'ipc-anon-reauth': b'\x00' + negotiate() + session(guest=False) +
    tree(share=2) + session(guest=False, reauth=True) + bytes([ECHO]),
    # found by the fuzzer: a LastAccessTime past INT64_MAX overflowed the
    # NTTIME conversion before the check rejected it
    'setinfo-time-overflow': b'\x00' + START + create(N_A) +
    set_info_basic(0, access=0x8000000000000000) + close(),
    'two-sessions': b'\x00' + START + session(guest=False, slot=1) +
    bytes([SELECT, 0x11]) + tree(share=1, slot=1) + create(N_A) +
    bytes([SELECT, 0x00]) + bytes([LOGOFF]) + bytes([SELECT, 0x11]) +
    close(0) + bytes([ECHO]),
    # keys: a signed 3.0.2 session (AES-CMAC), create/write/read/close
    'signed-302': b'\x01' + negotiate(mask=D_302) + user_session() +
    tree() + IO + bytes([TREE_DISCONNECT, LOGOFF]),
    # 3.1.1: the preauth chain, AES-GMAC signing, a signed compound
    # (each element signed with its padding)
    'preauth-311': b'\x00' + negotiate(mask=D_311, ctx=CTX_GMAC) +
    user_session() + tree() + IO + compound([
        (C_CREATE, create_ops(N_A)),
        (C_WRITE, write(slot=0xFF)[1:]),
        (C_READ, read(slot=0xFF)[1:]),
        (C_CLOSE, close(slot=0xFF)[1:]),
    ]) + bytes([LOGOFF]),
    # an encrypted tree: 3.1.1 with AES-128-GCM
    'encrypt-gcm': b'\x00' + negotiate(mask=D_311, ctx=CTX_GCM | CTX_CMAC) +
    user_session() + tree(S_CRYPT) + IO + query_dir() +
    bytes([TREE_DISCONNECT, LOGOFF]),
    # an encrypted tree: 3.0.2 with AES-128-CCM (the capability)
    'encrypt-ccm': b'\x01' + negotiate(mask=D_302) + user_session() +
    tree(S_CRYPT) + IO + compound([
        (C_CREATE, create_ops(N_A)),
        (C_WRITE, write(slot=0xFF)[1:]),
        (C_CLOSE, close(slot=0xFF)[1:]),
    ]) + bytes([LOGOFF]),
    # a tampered signature (ACCESS_DENIED), an unsigned request on a
    # signing session (ACCESS_DENIED), then the session still works
    'tampered-signature': b'\x00' + negotiate(mask=D_311) +
    user_session() + tree() + create(N_B) +
    write(op=WRITE | MUTATE) + mutation((SIG_POS + 3, 0x5A)) +
    select(unsigned=True) + read() + select() + write() + read() +
    close(),
    # plaintext on an encrypted tree, a tampered TRANSFORM, then sealed
    'plaintext-on-encrypted': b'\x00' +
    negotiate(mask=D_311, ctx=CTX_CCM | CTX_CMAC) + user_session() +
    tree(S_CRYPT) + create(N_B) + write() + select(plaintext=True) +
    read() + select() + read() + close() +
    read(op=READ | MUTATE) + mutation((4 + 20, 0x00),
                                      after_encryption=True),
    # a wrong password, then the right one; an anonymous session
    # re-authenticated as the user gets keys then
    'user-reauth': b'\x00' + negotiate(mask=D_311) +
    user_session(wrong_password=True) + session(guest=False) +
    user_session(reauth=True) + tree() + IO,
}

SEEDS.update({
    # two connections, a guest session on each, the same file: a lease
    # (RWH) on the first breaks when the second opens it (the break
    # arrives on the first, which acknowledges it), then an open
    # without sharing on the first meets a SHARING_VIOLATION on the
    # second
    'two-conns-share': b'\x00' + START +
    create(N_B, oplock=0x80, ctx=0x10, ctx_bytes=b'L' * 16 + bytes([7])) +
    channel(1) + negotiate() + session(slot=1) + tree(slot=1) +
    create(N_B, oplock=3) + channel(0) + select(0, 0) +
    bytes([OPLOCK_ACK, 0]) + create(N_A, access=0x40) + channel(1) +
    select(1, 1) + create(N_A) + close(1) + channel(0) + select(0, 0) +
    close(0) + close(2),
    # a signed 3.0.2 session bound to a second connection (its NEGOTIATE
    # names no session, as a client's): I/O on the channel, signed with
    # its key, on the tree and file of the first
    'bind-302': b'\x01' + negotiate(mask=D_302, caps=0x4F) +
    user_session() + tree() + create(N_B) + write() + channel(1) +
    select(7, 7) + negotiate(mask=D_302, caps=0x4F) + select(0, 0) +
    bind() + read() +
    write(offset=64) + read(length=128) + close() + channel(0) +
    bytes([LOGOFF]),
    # 3.1.1 (AES-GMAC): the binding's chain starts from the second
    # connection's NEGOTIATE, the channel's key is derived from it
    'bind-311': b'\x00' + negotiate(mask=D_311, ctx=CTX_GMAC, caps=0x4F) +
    user_session() + tree() + create(N_B) + write() + channel(1) +
    select(7, 7) + negotiate(mask=D_311, ctx=CTX_GMAC, caps=0x4F) +
    select(0, 0) + bind() + read() +
    write(offset=64) + read(length=128) + close() + channel(0) +
    bytes([LOGOFF]),
    # 3.1.1 with an encrypted tree (AES-128-GCM, sealed on both): the
    # first connection goes, the session lives on in its channel (the
    # binding names no tree: that would seal it)
    'bind-disconnect-first': b'\x00' +
    negotiate(mask=D_311, ctx=CTX_GCM | CTX_CMAC, caps=0x4F) +
    user_session() + tree(S_CRYPT) + create(N_B) + write() + channel(1) +
    select(7, 7) + negotiate(mask=D_311, ctx=CTX_GCM | CTX_CMAC, caps=0x4F) +
    select(0, 7) + bind() + select(0, 0) + channel(0) +
    bytes([DISCONNECT]) + channel(1) + read() + write(offset=64) +
    read(length=128) + close() + bytes([LOGOFF]),
})


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in sorted(SEEDS.items()):
        with open(os.path.join(OUT, 'seed-' + name), 'wb') as f:
            f.write(data)
    print('%d seeds in %s' % (len(SEEDS), OUT))


if __name__ == '__main__':
    main()

"""QUERY_INFO (MS-SMB2 3.3.5.20.1) of file classes that need more than the
fixed encoders: FileNormalizedNameInformation (MS-FSCC 2.4.30, 3.1.1
only) and the access each class asks of the handle.

Uses the writable share and helpers of test_setinfo.py (smbprotocol, as
guest); RINGSMB_TARGET=samba runs the same against Debian's smbd.
"""
import struct
import uuid

import pytest

from test_setinfo import (  # noqa: F401  (wsrv and t are fixtures)
    ACCESS_DENIED, INFO_LENGTH_MISMATCH, NOT_SUPPORTED, OK, READ_ATTRIBUTES,
    SHARE_ALL, SYNCHRONIZE, TIMEOUT, mkfile, op, query, status_of, t, wsrv)

from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

BUFFER_OVERFLOW = 0x80000005

# information classes
BASIC, STANDARD, INTERNAL, EA, ACCESS, NAME = 4, 5, 6, 7, 8, 9
POSITION, MODE, ALIGNMENT, ALL, ALTERNATE_NAME = 14, 16, 17, 18, 21
STREAM, COMPRESSION, NETWORK_OPEN, ATTRIBUTE_TAG = 22, 28, 34, 35
NORMALIZED_NAME = 48


def query_status(tree, f, cls, length=4096):
    """(status, buffer or None); smbprotocol raises on BUFFER_OVERFLOW."""
    try:
        return OK, query(tree, f, cls, length)
    except SMBResponseException as e:
        return e.status, None


def name_of(buf):
    n = struct.unpack_from("<I", buf)[0]
    assert len(buf) == 4 + n
    return buf[4:].decode("utf-16-le")


def test_normalized_name_is_on_disk_name_without_backslash(t):
    mkfile(t, "DiR1/SuB/FiLe.TxT")
    f = op(t, "dir1/sub/file.txt", READ_ATTRIBUTES)
    d = op(t, "DIR1", READ_ATTRIBUTES, CreateOptions.FILE_DIRECTORY_FILE)
    try:
        want = t.rel + "\\DiR1\\SuB\\FiLe.TxT"
        assert name_of(query(t, f, NORMALIZED_NAME)) == want
        assert name_of(query(t, d, NORMALIZED_NAME)) == t.rel + "\\DiR1"
        # FileNameInformation keeps its leading backslash
        assert name_of(query(t, f, NAME)) == "\\" + want
    finally:
        f.close()
        d.close()


def test_normalized_name_of_share_root_is_empty(t):
    # op() would open the test's directory for an empty name
    r = Open(t, "")
    r.create(ImpersonationLevel.Impersonation, SYNCHRONIZE,
             FileAttributes.FILE_ATTRIBUTE_DIRECTORY, SHARE_ALL,
             CreateDisposition.FILE_OPEN,
             CreateOptions.FILE_DIRECTORY_FILE)
    try:
        assert query(t, r, NORMALIZED_NAME) == b"\0\0\0\0"
    finally:
        r.close()


def test_normalized_name_buffer_sizes(t):
    mkfile(t, "abcdef")
    f = op(t, "abcdef", 0)
    try:
        assert query_status(t, f, NORMALIZED_NAME, 3)[0] == \
            INFO_LENGTH_MISMATCH
        assert query_status(t, f, NORMALIZED_NAME, 8)[0] == \
            BUFFER_OVERFLOW
        full = (t.rel + "\\abcdef").encode("utf-16-le")
        assert query_status(t, f, NORMALIZED_NAME, 4 + len(full)) == \
            (OK, struct.pack("<I", len(full)) + full)
    finally:
        f.close()


def connect(srv, dialect):
    conn = Connection(uuid.uuid4(), srv.host, srv.port,
                      require_signing=False)
    conn.connect(dialect, timeout=TIMEOUT)
    session = Session(conn, username="guest", password="",
                      require_encryption=False, auth_protocol="ntlm")
    session.connect()
    tree = TreeConnect(session, r"\\%s\share" % srv.host)
    tree.connect(require_secure_negotiate=False)
    return conn, tree


@pytest.mark.parametrize("dialect", [Dialects.SMB_2_0_2, Dialects.SMB_2_1_0,
                                     Dialects.SMB_3_0_2])
def test_normalized_name_needs_311(wsrv, t, dialect):
    """MS-SMB2 3.3.5.20.1: NOT_SUPPORTED before 3.1.1."""
    mkfile(t, "f")
    conn, tree = connect(wsrv, dialect)
    try:
        tree.dir, tree.rel = t.dir, t.rel
        f = op(tree, "f", READ_ATTRIBUTES)
        try:
            assert query_status(tree, f, NORMALIZED_NAME)[0] == \
                NOT_SUPPORTED
            # the other name classes are there on every dialect
            assert query_status(tree, f, NAME)[0] == OK
        finally:
            f.close()
    finally:
        conn.disconnect(True)


# MS-SMB2 3.3.5.20.1: these need FILE_READ_ATTRIBUTES on the handle
NEEDS_READ_ATTRIBUTES = [BASIC, ALL, NETWORK_OPEN, ATTRIBUTE_TAG]
# ... and these need nothing beyond an open handle
NEEDS_NOTHING = [STANDARD, INTERNAL, EA, ACCESS, NAME, POSITION, MODE,
                 ALIGNMENT, ALTERNATE_NAME, STREAM, COMPRESSION,
                 NORMALIZED_NAME]


@pytest.mark.parametrize("cls", NEEDS_READ_ATTRIBUTES)
def test_class_needs_read_attributes(t, cls):
    mkfile(t, "f")
    f = op(t, "f", 0)                       # SYNCHRONIZE only
    g = op(t, "f", READ_ATTRIBUTES)
    try:
        assert query_status(t, f, cls)[0] == ACCESS_DENIED
        assert query_status(t, g, cls)[0] == OK
    finally:
        f.close()
        g.close()


@pytest.mark.parametrize("cls", NEEDS_NOTHING)
def test_class_needs_no_access(t, cls):
    mkfile(t, "f")
    f = op(t, "f", 0)                       # SYNCHRONIZE only
    try:
        assert query_status(t, f, cls)[0] == OK
    finally:
        f.close()


def test_denied_before_length_check(t):
    """No FILE_READ_ATTRIBUTES and a too short buffer: the access check
    answers first."""
    mkfile(t, "f")
    f = op(t, "f", 0)
    try:
        assert status_of(lambda: query(t, f, BASIC, 1)) == ACCESS_DENIED
    finally:
        f.close()

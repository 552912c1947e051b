"""The Python smbprotocol client (low-level API) against the server, for
every dialect: NEGOTIATE, SESSION_SETUP, TREE_CONNECT, CREATE, READ,
QUERY_INFO, QUERY_DIRECTORY, CLOSE.

Authentication: smbprotocol goes through pyspnego, whose NTLM client needs a
user name; it has no anonymous mode.  We log on as user "guest" with an
empty password: the server has no such account and `map to guest = Bad User`
turns the session into a guest session (SMB2_SESSION_FLAG_IS_GUEST), which
smbprotocol accepts when signing and encryption are not required.  So the
server must map an unknown user with a (well-formed NTLMv2) response to
guest.
"""
import hashlib
import uuid

import pytest

from conftest import DATA_FILES, PROBE_DATA, PROBE_NAME

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, DirectoryAccessMask,
    FileAttributes, FileInformationClass, FilePipePrinterAccessMask,
    ImpersonationLevel, Open, ShareAccess)
from smbprotocol.open import (  # noqa: E402
    SMB2QueryInfoRequest, SMB2QueryInfoResponse)
from smbprotocol.file_info import (  # noqa: E402
    FileStandardInformation, InfoType)

DIALECTS = {
    "2.0.2": Dialects.SMB_2_0_2, "2.1": Dialects.SMB_2_1_0,
    "3.0": Dialects.SMB_3_0_0, "3.0.2": Dialects.SMB_3_0_2,
    "3.1.1": Dialects.SMB_3_1_1,
}
TIMEOUT = 30


@pytest.fixture
def tree(default_server, request):
    dialect = DIALECTS[request.param]
    conn = Connection(uuid.uuid4(), default_server.host, default_server.port,
                      require_signing=False)
    conn.connect(dialect, timeout=TIMEOUT)
    try:
        assert conn.dialect == dialect
        session = Session(conn, username="guest", password="",
                          require_encryption=False, auth_protocol="ntlm")
        try:
            session.connect()
        except Exception as ex:
            pytest.fail("guest session setup failed: %s (the server must map "
                        "an unknown user to guest with 'map to guest = Bad "
                        "User')" % ex)
        t = TreeConnect(session, r"\\%s\share" % default_server.host)
        # secure negotiate (FSCTL_VALIDATE_NEGOTIATE_INFO) needs a signing
        # key, which a guest session does not have
        t.connect(require_secure_negotiate=False)
        yield t
        t.disconnect()
        session.disconnect()
    finally:
        conn.disconnect(True)


def open_file(tree, name):
    f = Open(tree, name)
    f.create(ImpersonationLevel.Impersonation,
             FilePipePrinterAccessMask.GENERIC_READ,
             FileAttributes.FILE_ATTRIBUTE_NORMAL,
             ShareAccess.FILE_SHARE_READ,
             CreateDisposition.FILE_OPEN,
             CreateOptions.FILE_NON_DIRECTORY_FILE)
    return f


def read_all(f, size, max_read):
    h = hashlib.sha256()
    off = 0
    chunk = min(max_read, 1 << 20)
    for _ in range(size // chunk + 2):      # bounded
        if off >= size:
            break
        data = f.read(off, min(chunk, size - off))
        assert data, "empty read at offset %d of %d" % (off, size)
        h.update(data)
        off += len(data)
    assert off == size
    return h.hexdigest()


@pytest.mark.parametrize("tree", list(DIALECTS), indirect=True)
def test_read_files(tree, share_tree):
    f = open_file(tree, PROBE_NAME)
    try:
        assert f.end_of_file == len(PROBE_DATA)
        assert f.read(0, len(PROBE_DATA)) == PROBE_DATA
    finally:
        f.close()
    max_read = tree.session.connection.max_read_size
    for name in ("one.bin", "k64p1.bin", "m1.bin"):
        f = open_file(tree, name)
        try:
            assert f.end_of_file == DATA_FILES[name]
            assert read_all(f, DATA_FILES[name], max_read) == \
                share_tree.hashes[name], name
        finally:
            f.close()


@pytest.mark.parametrize("tree", list(DIALECTS), indirect=True)
def test_query_info(tree):
    f = open_file(tree, "k64p1.bin")
    try:
        req = SMB2QueryInfoRequest()
        req["info_type"] = InfoType.SMB2_0_INFO_FILE
        req["file_info_class"] = FileInformationClass.FILE_STANDARD_INFORMATION
        req["output_buffer_length"] = 1024
        req["file_id"] = f.file_id
        conn = tree.session.connection
        sent = conn.send(req, tree.session.session_id, tree.tree_connect_id)
        resp = SMB2QueryInfoResponse()
        resp.unpack(conn.receive(sent, timeout=TIMEOUT)["data"].get_value())
        std = FileStandardInformation()
        std.unpack(resp["buffer"].get_value())
        assert std["end_of_file"].get_value() == 64 * 1024 + 1
        assert std["directory"].get_value() == 0
    finally:
        f.close()


@pytest.mark.parametrize("tree", list(DIALECTS), indirect=True)
def test_query_directory(tree):
    d = Open(tree, "")
    d.create(ImpersonationLevel.Impersonation,
             DirectoryAccessMask.FILE_LIST_DIRECTORY |
             DirectoryAccessMask.FILE_READ_ATTRIBUTES,
             FileAttributes.FILE_ATTRIBUTE_DIRECTORY,
             ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE,
             CreateDisposition.FILE_OPEN,
             CreateOptions.FILE_DIRECTORY_FILE)
    try:
        entries = d.query_directory(
            "*", FileInformationClass.FILE_ID_BOTH_DIRECTORY_INFORMATION)
        got = {e["file_name"].get_value().decode("utf-16-le"):
               e["end_of_file"].get_value() for e in entries}
    finally:
        d.close()
    for name, size in DATA_FILES.items():
        assert got.get(name) == size, (name, got.get(name))
    assert got.get(PROBE_NAME) == len(PROBE_DATA)
    assert "sub" in got and "many" in got

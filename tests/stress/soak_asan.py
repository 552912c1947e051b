"""T13 / G11 under the ASan+UBSan build: the soak of soak.py, run on
build-asan's smbd, so that its sanitizer count is the G11 figure "0
sanitizer reports".  Its RSS is ASan's (freed memory sits in a
quarantine of up to 256 MiB), so the slope here is reported, not
judged; the release build's soak part judges it.
"""
import soak


def run(tree, long_mode, binary):
    return soak.run(tree, long_mode, binary, asan=True)

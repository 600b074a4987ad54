"""The one reader of input files (xaip.sidefiles): devices, FIFOs, size caps, UTF-8 and JSON
errors, JSON types, and the record of files read that the output check uses."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from xaip import sidefiles
from xaip.errors import InputError
from xaip.sidefiles import expect, parse_json, read_bytes, read_json, read_text, recording


def test_device_refused_without_reading() -> None:
    with pytest.raises(InputError, match="/dev/zero: is a device"):
        read_bytes("/dev/zero", "vocabulary")


def test_directory_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory, expected a level file"):
        read_text(tmp_path, "level")
    with pytest.raises(InputError, match="no such file"):
        read_text(tmp_path / "nope.json", "spec")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_without_writer_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(InputError, match="FIFO with no writer"):
        read_json(fifo, "vocabulary")
    assert time.monotonic() - started < 10


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_with_a_writer_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as handle:  # blocks until the reader opens
            handle.write('{"a": 1}')

    writer = threading.Thread(target=write)
    writer.start()
    assert read_json(fifo, "spec") == {"a": 1}
    writer.join(5)


def test_size_cap_per_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x" * 200)
    monkeypatch.setitem(sidefiles.KINDS, "foil", sidefiles.Kind("foil file", 100))
    with pytest.raises(InputError, match="larger than the 100 bytes limit for a foil file"):
        read_text(path, "foil")
    assert read_text(path, "text") == "x" * 200


def test_utf8_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "labels.txt"
    path.write_bytes(b"ok\nab\xff\n")
    with pytest.raises(InputError, match=r"labels.txt:2:3: not UTF-8 text \(byte 0xff\)"):
        read_text(path, "labels")


def test_bom_dropped(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_bytes(b"\xef\xbb\xbf[1]")
    assert read_json(path, "vocabulary") == [1]


@pytest.mark.parametrize(("text", "message"), [
    ('{"a":\n  tru}', r"f.json:2:3: invalid JSON"),
    ('{"w": NaN}', r"f.json:1:7: invalid JSON: NaN is not a number"),
    ('{"s": "NaN",\n "w": -Infinity}', r"f.json:2:7: invalid JSON: -Infinity is not a number"),
    ("[1,\n 1e400]", r"f.json:2:2: invalid JSON: 1e400 is out of range"),
    ("[" + "9" * 40 + "]", "f.json:1:2: invalid JSON: an integer of 40 digits is out of range"),
    ("[" * 10_000 + "]" * 10_000, "nested deeper than"),
])
def test_json_limits(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_json(text, "f.json")


def test_brackets_in_strings_do_not_count_as_nesting() -> None:
    assert parse_json('["' + "[" * 500 + '"]', "f.json") == ["[" * 500]


def test_expect_names_the_place_and_the_type() -> None:
    assert expect({"a": 1}, dict, "spec.json") == {"a": 1}
    assert expect(3, float, "w") == 3
    with pytest.raises(InputError, match="spec.json: 'weights': expected an object, not a list"):
        expect([], dict, "spec.json: 'weights'")
    with pytest.raises(InputError, match="expected a number, not true or false"):
        expect(True, float, "w")
    with pytest.raises(InputError, match="expected a string, not null"):
        expect(None, str, "robot_domain")


def test_recording_remembers_every_name_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x")
    link = tmp_path / "b.txt"
    os.link(path, link)
    read_text(path)  # outside a command: nothing is recorded
    assert sidefiles.files_read() == []
    with recording():
        read_text(path)
        assert sidefiles.was_read(link)
        assert sidefiles.files_read() == [str(path)]
    assert sidefiles.files_read() == []

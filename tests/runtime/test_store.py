"""The run store keeps records across openings and refuses what it cannot trust."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xaip.errors import InputError
from xaip.runtime import RunStore


def test_records_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    with RunStore(path, "xaip-test-1", {"seed": 0}) as store:
        store.put("answers", "q1", {"reached": True})
        store.put("answers", "q2", [1, 2])
        assert store.count("answers") == 2
    with RunStore(path, "xaip-test-1", {"seed": 0}) as store:
        assert store.get("answers", "q1") == {"reached": True}
        assert dict(store.items("answers")) == {"q1": {"reached": True}, "q2": [1, 2]}
        assert store.get("answers", "missing") is None


def test_other_run_or_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    RunStore(path, "xaip-test-1", {"seed": 0}).close()
    with pytest.raises(InputError, match="another run"):
        RunStore(path, "xaip-test-1", {"seed": 1})
    with pytest.raises(InputError, match="holds 'xaip-test-1'"):
        RunStore(path, "xaip-other-1", {"seed": 0})


def test_not_a_database_and_directories_are_bad_input(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InputError, match="not a usable xaip store"):
        RunStore(junk, "xaip-test-1")
    with pytest.raises(InputError, match="directory"):
        RunStore(tmp_path, "xaip-test-1")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write read-only files")
def test_read_only_store_is_detected_before_work(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    RunStore(path, "xaip-test-1").close()
    path.chmod(0o444)
    with pytest.raises(InputError, match="cannot be written"):
        RunStore(path, "xaip-test-1")


def test_damaged_record_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    with RunStore(path, "xaip-test-1") as store:
        store.put("answers", "q1", 1)
        store._db.execute("UPDATE records SET value = '{broken' WHERE key = 'q1'")
        with pytest.raises(InputError, match="damaged record"):
            store.get("answers", "q1")

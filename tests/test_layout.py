"""The code stays in small modules with one idea each (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "xaip"
LIMIT = 650  # "no module over ~600 lines", with a little slack for docstrings


def test_no_module_is_too_long() -> None:
    long = {str(path.relative_to(SRC)): n for path in SRC.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert not long, f"split these modules by idea: {long}"


def test_exit_codes_have_one_copy() -> None:
    copies = [path for path in SRC.rglob("*.py")
              if "EXIT_OK, EXIT_NEGATIVE" in path.read_text(encoding="utf-8")
              and "= 0, 1" in path.read_text(encoding="utf-8")]
    assert [p.name for p in copies] == ["errors.py"]

"""Differential tests: every explainer family against brute-force oracles on random instances.

Each family has one module here (``tests/differential/<family>.py``) with

* ``CI_INSTANCES`` -- how many seeded instances the CI run checks (at least 200);
* ``check(seed: int) -> str | None`` -- generate the instance of ``seed`` (a random generator
  written for the family), run xaip's search and checker on it and compare with an oracle
  written from the definitions (never from the search code). ``None`` means they agree (or the
  instance was outside what the oracle can enumerate, which the module counts as agreement only
  when it says so in its docstring); a string describes the disagreement.

``tests/differential/test_families.py`` runs ``CI_INSTANCES`` seeds per family;
``scripts/differential --instances N`` runs long campaigns and reports counts and times.
Every disagreement found becomes a regression test in the family's own test folder.
"""

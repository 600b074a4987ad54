"""User studies in the workbench: show explanations to participants, store what they say.

Why a package of its own (and not :mod:`xaip.studies`, which runs batch experiments): a user
study is a protocol with people -- consent, instructions, counterbalanced conditions,
questions, completion codes -- and its data must survive a killed server. Layout:
:mod:`.spec` reads and checks the study file; :mod:`.order` counterbalances conditions;
:mod:`.store` keeps participants, responses and shown answers in SQLite; :mod:`.answers`
computes each condition's answer once; :mod:`.web` mounts the participant and researcher
pages on the workbench (``xaip serve --study``); :mod:`.summary` exports CSV and tables.
"""

from __future__ import annotations

from xaip.userstudy.spec import Condition, Question, Study, load_study, parse_study

__all__ = ["Condition", "Question", "Study", "load_study", "parse_study"]

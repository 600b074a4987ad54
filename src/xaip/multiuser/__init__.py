"""Explanations for several users with their own models and a privacy map (MA-RADAR, book
§10.2.2, feature A03).

Typical use::

    from xaip.multiuser import explain_to_users
    result = explain_to_users((robot_domain, robot_problem),
                              {"commander": commander_domain, "police": police_domain},
                              privacy={"private": {"police": ["predicate:has_police_car"]}})
    result.user("commander").edits      # what the commander needs and may hear
    result.shared                       # the group's conformant explanation, if allowed
    result.verified                     # set by xaip.multiuser.checks.check

See ``docs/multiuser.md``.
"""

from __future__ import annotations

from xaip.multiuser.explain import explain_to_users
from xaip.multiuser.merge import MergedFeature, MergedModel
from xaip.multiuser.models import User
from xaip.multiuser.privacy import PrivacyMap, parse_privacy, read_privacy
from xaip.multiuser.results import MultiUserResult, SharedExplanation, UserExplanation

__all__ = ["MergedFeature", "MergedModel", "MultiUserResult", "PrivacyMap",
           "SharedExplanation", "User", "UserExplanation", "explain_to_users",
           "parse_privacy", "read_privacy"]

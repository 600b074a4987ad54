"""Model-free explanations (book §6.3, book-spec §5.5, row U05).

No model of the person is given. Instead, labelled data: plans whose steps people labelled
explicable or not, each with the explanation messages they had seen. xaip learns a
message-conditioned step labeller from it (:mod:`xaip.modelfree.labeller`) and finds the
cheapest set of messages after which every step of the robot's plan is labelled explicable
(:mod:`xaip.modelfree.search`: exact for small message sets, greedy with a proven lower
bound beyond), checked by :mod:`xaip.modelfree.checks` with the same learned labeller.
:mod:`xaip.modelfree.synthetic` generates data from a synthetic person whose model is
known, so the learned answer can be compared with the truth. See ``docs/modelfree.md``.

Front door::

    from xaip.modelfree import bundled, explain_model_free
    example = bundled()
    result = explain_model_free(example.records, example.messages, example.plan)
"""

from xaip.modelfree.bundled import Example, bundled
from xaip.modelfree.data import (
    Message,
    Record,
    parse_messages,
    parse_records,
    read_messages,
    read_records,
    read_robot_plan,
)
from xaip.modelfree.explain import LearnedPerson, explain_model_free, explain_plan, learn
from xaip.modelfree.labeller import Accuracy, MessageLabeller
from xaip.modelfree.results import ModelFreeExplanation

__all__ = ["Accuracy", "Example", "LearnedPerson", "Message", "MessageLabeller",
           "ModelFreeExplanation", "Record", "bundled", "explain_model_free", "explain_plan",
           "learn", "parse_messages", "parse_records", "read_messages", "read_records",
           "read_robot_plan"]

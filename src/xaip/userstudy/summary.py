"""The researcher's view of the data: CSV (one row per response) and per-condition tables.

Why computed from the stored rows every time: the database is the one record; a summary
kept beside it could disagree with it after a crash. Likert answers are summarised by
mean and sample standard deviation, choice-like answers by counts per option, attention
checks by their pass rate; the one figure shows the Likert means with their SD per
condition (matplotlib, drawn off-screen into a PNG).
"""

from __future__ import annotations

import base64
import csv
import io
import statistics
from datetime import UTC, datetime
from typing import Any

from xaip.userstudy.spec import Study
from xaip.userstudy.store import StudyStore

COLUMNS = ("participant", "participant_index", "condition", "position", "question", "kind",
           "answer", "correct", "shown_at", "answered_at", "seconds", "over_time", "timed_out")


def _when(stamp: float | None) -> str:
    if stamp is None:
        return ""
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="milliseconds")


def export_csv(store: StudyStore) -> str:
    """Every response as CSV (header :data:`COLUMNS`; times in UTC ISO 8601; ``position`` is
    the condition's place in the participant's order, from 1)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in store.responses():
        correct = "" if row["correct"] is None else row["correct"]
        seconds = "" if row["seconds"] is None else f"{row['seconds']:.3f}"
        writer.writerow([row["code"], row["idx"], row["condition"], row["position"],
                         row["question"], row["kind"], row["answer"], correct,
                         _when(row["shown_at"]), _when(row["answered_at"]), seconds,
                         row["over_time"], row["timed_out"]])
    return out.getvalue()


def summarise(study: Study, store: StudyStore, shown: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    """Per condition: participants who answered, mean seconds, and per question its table
    (``shown``: the conditions' :class:`~xaip.userstudy.answers.Shown`, whose edits are
    the options of edit questions)."""
    rows = store.responses()
    conditions = []
    for condition in study.conditions:
        mine = [r for r in rows if r["condition"] == condition.name]
        people = {r["code"] for r in mine}
        seconds = {r["code"]: r["seconds"] for r in mine if r["seconds"] is not None}
        late = {r["code"] for r in mine if r["over_time"]}
        cut = {r["code"] for r in mine if r["timed_out"]}
        questions = []
        for question in condition.questions:
            answers = [r for r in mine if r["question"] == question.id and r["answer"] != ""]
            entry: dict[str, Any] = {"id": question.id, "kind": question.kind,
                                     "text": question.text, "n": len(answers)}
            if question.kind == "likert":
                values = [int(r["answer"]) for r in answers]
                entry["mean"] = statistics.fmean(values) if values else None
                entry["sd"] = statistics.stdev(values) if len(values) > 1 else None
                entry["scale"] = question.scale
            elif question.kind in ("choice", "plan", "attention", "edit"):
                options = question.options
                if shown is not None and condition.name in shown:
                    options = shown[condition.name].options(question)
                entry["counts"] = {o: sum(r["answer"] == o for r in answers)
                                   for o in options}
                if question.correct is not None:
                    passed = sum(r["correct"] == 1 for r in answers)
                    entry["correct"] = question.correct
                    entry["pass_rate"] = passed / len(answers) if answers else None
            questions.append(entry)
        conditions.append({"name": condition.name, "participants": len(people),
                           "over_time": len(late), "timed_out": len(cut),
                           "mean_seconds": (statistics.fmean(seconds.values())
                                            if seconds else None),
                           "questions": questions})
    everyone = store.participants()
    return {"title": study.title, "participants": len(everyone),
            "finished": sum(p.finished is not None for p in everyone),
            "responses": len(rows), "conditions": conditions}


def likert_figure(summary: dict[str, Any]) -> str | None:
    """A PNG (as a ``data:`` URI) of every Likert question's mean and SD per condition, or
    ``None`` when there are no Likert answers yet."""
    series: dict[str, dict[str, tuple[float, float]]] = {}
    for condition in summary["conditions"]:
        for question in condition["questions"]:
            if question["kind"] == "likert" and question["mean"] is not None:
                series.setdefault(condition["name"], {})[question["id"]] = (
                    question["mean"], question["sd"] or 0.0)
    if not series:
        return None
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    ids = sorted({q for values in series.values() for q in values})
    figure = Figure(figsize=(6, 3.2), dpi=100)
    axes = figure.add_subplot()
    width = 0.8 / len(series)
    for number, (name, values) in enumerate(sorted(series.items())):
        xs = [i + number * width for i in range(len(ids))]
        means = [values.get(q, (0.0, 0.0))[0] for q in ids]
        sds = [values.get(q, (0.0, 0.0))[1] for q in ids]
        axes.bar(xs, means, width, yerr=sds, capsize=3, label=name)
    axes.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(ids))], ids)
    axes.set_ylabel("mean (SD)")
    axes.set_title("Likert answers per condition")
    axes.legend()
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


__all__ = ["COLUMNS", "export_csv", "likert_figure", "summarise"]

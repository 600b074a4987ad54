"""Explanatory confidence: the paper's Bayesian updates, with classifier noise.

Why these formulas (ICLR'22 §6 and appendix A.4–A.5): a sampled explanation is only
certain in the limit, so each candidate carries a posterior that every sample updates.

Precondition ``c ∈ pre(a)``, observed at a state where ``a`` succeeds with label ``o``:

* if ``c`` is a precondition, ``c`` is truly present, so ``P(o | H)`` is the classifier's
  ``1 - fn`` (for ``o = 1``) or ``fn`` (for ``o = 0``);
* if it is not, ``c`` is present with its overall frequency ``q`` in the sampled region
  (assumption 1 of the paper), so ``P(o=1 | ¬H) = q (1 - fn) + (1 - q) fp``.

With a perfect classifier one executable state without ``c`` sets the posterior to 0, and
one with ``c`` multiplies the odds by ``1 / q``: a common concept is weak evidence.

Cost bound ``C_abs(a, C') ≥ k``, observed at a state where ``a`` succeeds and every concept
of ``C'`` is labelled present:

* if the bound holds, the cost is ≥ k unless a label was a false positive
  (``r = Π P(c | labelled c)``): ``P(cost ≥ k | H) = r + (1 - r) p_k`` and
  ``P(cost < k | H) = (1 - r)(1 - p_k)``;
* if it does not, the cost is ≥ k with the action's overall rate ``p_k`` (assumption 2).

With perfect classifiers (``r = 1``) this is the paper's ``p / (p + (1 - p) p_k)``, and a
single cheaper observation refutes the bound.
"""

from __future__ import annotations

from collections.abc import Iterable

PRIOR = 0.5
CUTOFF = 0.01
_TINY = 1e-12


def bayes(prior: float, like_true: float, like_false: float) -> float:
    """Posterior of a hypothesis with likelihoods of the observation under it and not."""
    num = prior * like_true
    den = num + (1.0 - prior) * like_false
    return num / den if den > _TINY else prior


def presence_rate(observed_rate: float, false_positive: float, false_negative: float) -> float:
    """The true frequency ``q`` behind an observed label frequency (clipped to (0, 1))."""
    span = 1.0 - false_positive - false_negative
    q = (observed_rate - false_positive) / span if span > _TINY else observed_rate
    return min(max(q, 1e-6), 1.0 - 1e-6)


def precondition_update(prior: float, observed: bool, q: float, false_positive: float,
                        false_negative: float) -> float:
    """Posterior of ``c ∈ pre(a)`` after one state where ``a`` succeeds and ``c`` was
    labelled ``observed`` (see the module docstring)."""
    says_present_if_false = q * (1 - false_negative) + (1 - q) * false_positive
    if observed:
        return bayes(prior, 1.0 - false_negative, says_present_if_false)
    return bayes(prior, false_negative, 1.0 - says_present_if_false)


def precision(q: float, false_positive: float, false_negative: float) -> float:
    """``P(c truly present | labelled present)``."""
    hit = q * (1 - false_negative)
    return hit / (hit + (1 - q) * false_positive) if hit > _TINY else 0.0


def cost_bound_posterior(costs: Iterable[float], bound: float, p_at_least: float,
                         reliability: float, prior: float = PRIOR) -> float:
    """Posterior of ``C_abs(a, C') ≥ bound`` after the observed ``costs`` of ``a`` at states
    labelled with every concept of ``C'`` (``reliability`` is ``r``, ``p_at_least`` is
    ``p_k``; see the module docstring)."""
    p_k = min(max(p_at_least, _TINY), 1.0)
    posterior = prior
    for cost in costs:
        if cost >= bound:
            posterior = bayes(posterior, reliability + (1 - reliability) * p_k, p_k)
        else:
            posterior = bayes(posterior, (1 - reliability) * (1 - p_k), 1 - p_k)
    return posterior
